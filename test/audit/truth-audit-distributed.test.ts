/**
 * The truth audit (docs/audit.md) in the distributed mode (docs/distributed.md): the same series
 * as truth-audit.test.ts (the same simulated Web, virtual clock, weekly snapshots and ticks), each
 * crawl handed to a real PostgreSQL coordinator and crawled by two workers, and every figure of the
 * portal's data and the rendered numbers held against the same independent account.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startPostgres, type TestPostgres } from '../distributed/postgres.ts';
import { TEST_SIZE } from './audit-series.ts';
import { pldOf } from './observations.ts';
import {
  differingLines,
  distributedLimits,
  expectedFacts,
  runTruthAudit,
  seriesFacts,
  type TruthAudit,
} from './truth-audit.ts';

const WORKERS = 2;
let server: TestPostgres;
let work: string;
let audit: TruthAudit;

before(async () => {
  server = await startPostgres();
  work = await mkdtemp(join(tmpdir(), 'truth-audit-distributed-'));
  audit = await runTruthAudit(work, TEST_SIZE, { kind: 'coordinator', url: server.url, workers: WORKERS });
});

after(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

test('every crawl of the series went through the coordinator: its workers recorded every document, both of them', () => {
  // a fetch continued in another PLD is recorded there too (a result of its own, no document row)
  const crossings = (rows: (typeof audit.account.crawls)[number]['rows']) =>
    rows.reduce((n, r) => n + r.hops.filter((h) => pldOf(h.from) !== pldOf(h.to)).length, 0);
  const perCrawl = audit.account.crawls.map(({ crawl, rows }) => ({
    crawl: crawl.name,
    documents: rows.length,
    continued: crossings(rows),
    recorded: crawl.recorded?.reduce((a, b) => a + b, 0) ?? 0,
  }));
  assert.deepEqual(
    perCrawl.filter((c) => c.recorded < c.documents || c.recorded > c.documents + c.continued),
    [],
  );
  const byWorker = Array.from({ length: WORKERS }, (_, i) =>
    audit.series.crawls.reduce((n, c) => n + (c.recorded?.[i] ?? 0), 0),
  );
  assert.ok(
    byWorker.every((n) => n > 0),
    `recorded per worker: ${byWorker}`,
  );
});

test('the series holds what the audit is for, and none of the cases where the distributed mode documents a difference', () => {
  assert.deepEqual(seriesFacts(audit), expectedFacts(TEST_SIZE.weeks));
  assert.deepEqual(distributedLimits(audit), { crossPldRevisits: [], crossPldChainsOverLimit: [] });
});

test('the independent account explains every request the server logged, and the server saw every request it expects', () => {
  assert.deepEqual(audit.account.anomalies, []);
});

test('every leaf of portal.json is checked or listed with a reason', () => {
  assert.deepEqual(audit.report.unaudited, []);
  assert.ok(audit.report.checkedLeaves > 2000, `${audit.report.checkedLeaves} leaves checked`);
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
