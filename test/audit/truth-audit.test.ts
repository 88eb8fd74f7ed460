/**
 * The truth audit (docs/audit.md): three weeks of the simulated Web with ticks, faults, redirects,
 * conditional re-visits, robots.txt rules and a document that disappears and returns, crawled over
 * real HTTP and published by the real pipeline; every figure of the portal's data and a few rendered
 * numbers held against an account derived from the Web's ground truth and the server's request log.
 * `npm run audit` runs the same at a larger size and prints the table.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { TEST_SIZE } from './audit-series.ts';
import { KNOWN_WRONG } from './known-wrong.ts';
import { auditPortal } from './portal-audit.ts';
import { differingLines, expectedFacts, runTruthAudit, seriesFacts, type TruthAudit } from './truth-audit.ts';

let work: string;
let audit: TruthAudit;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'truth-audit-'));
  audit = await runTruthAudit(work, TEST_SIZE);
});

after(async () => {
  await rm(work, { recursive: true, force: true });
});

test('the series holds what the audit is for: ticks, faults, redirects, 304s, robots.txt, a document that disappears and returns', () => {
  assert.deepEqual(seriesFacts(audit), expectedFacts(TEST_SIZE.weeks));
});

test('the independent account explains every request the server logged, and the server saw every request it expects', () => {
  assert.deepEqual(audit.account.anomalies, []);
});

test('every leaf of portal.json is checked or listed with a reason', () => {
  assert.deepEqual(audit.report.unaudited, []);
  assert.ok(audit.report.checkedLeaves > 2000, `${audit.report.checkedLeaves} leaves checked`);
  for (const l of audit.report.listed) assert.ok(l.reason.length > 0, l.figure);
});

test('the series has statements, links and types added and removed for the delta figures to agree on', () => {
  const deltas = [...audit.truth.snapshots.values()].map(
    (s) => s.digest.delta as { added: number; removed: number; linksAdded: number; linksRemoved: number },
  );
  for (const field of ['added', 'removed', 'linksAdded', 'linksRemoved'] as const)
    assert.ok(deltas.reduce((n, d) => n + d[field], 0) > 0, field);
});

test('every figure of portal.json agrees with the independent account (known wrong ones aside)', () => {
  assert.deepEqual(differingLines(audit), []);
  assert.deepEqual(audit.report.staleKnownWrong, []);
});

test('the pages render the audited numbers', () => {
  assert.ok(audit.pages.length > 50);
  assert.deepEqual(
    audit.pages
      .filter((r) => r.verdict !== 'agrees')
      .map((r) => `${r.figure}: ${r.portal} (want ${r.independent})`),
    [],
  );
});

test('the audit catches a 304 counted as an availability change (the bug it was written for)', async () => {
  // portal data as published before schema 4: every 200 <-> 304 an availability change
  const old = (rows: (typeof audit.account.crawls)[number]['rows']) =>
    rows.filter(
      (r) => r.previous !== null && (r.status !== r.previous.status || r.error !== r.previous.error),
    ).length;
  const byName = new Map(audit.account.crawls.map((c) => [c.crawl.name, c.rows]));
  const data = structuredClone(audit.built.data);
  const mutated = data.snapshots.map((s) => {
    const wrong = old(byName.get(s.name)!);
    const changed = wrong !== s.digest.availabilityChanged;
    (s.digest as { availabilityChanged: number }).availabilityChanged = wrong;
    return changed ? s.name : null;
  });
  const report = await auditPortal({ truth: audit.truth, root: join(work, 'snapshots'), data }, KNOWN_WRONG);
  const caught = report.rows
    .filter((r) => r.verdict === 'DIFFERS' && r.pattern === 'snapshots[].digest.availabilityChanged')
    .map((r) => r.figure);
  const expected = mutated.filter((n) => n !== null).map((n) => `snapshots[${n}].digest.availabilityChanged`);
  assert.ok(expected.length > 0, 'the series has snapshots where the two definitions differ');
  assert.deepEqual(caught, expected);
});
