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
import { SCENARIOS, startSimWeb } from '../../pipeline/simweb/index.ts';
import { startPostgres, type TestPostgres } from '../distributed/postgres.ts';
import { coordinatedWeek, distributedConfig, oneProcessWeek } from '../distributed/sim-distributed.ts';
import { publishedContent } from '../soak/published-content.ts';
import { AUDIT_START, TEST_SIZE } from './audit-series.ts';
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

/**
 * A finding of the audit through the coordinator, fixed in coordinate.ts (writeJournal): on the PLD
 * www.redirect-lab.net, `redirect-chain` (chain/1 -> chain/2 -> data.redirect-lab.org/chain/3 ->
 * back to data/Berlin) is leased first, the 7 hops of `redirect-too-long` keep its holder busy
 * (300 ms apart) until the chain's continuation data/Berlin is queued there, which then comes before
 * resource/Berlin (`see-other`, 303 to data/Berlin): its fetch takes the continuation's download,
 * and its record said downloadedBy data/Berlin, a URL with no documents row (the journal makes the
 * continuation part of chain/1's record), so the publish left it out as orphaned. One process
 * publishes all three; the coordinator now names chain/1.
 */
test('through the coordinator, a seed whose final URL a continued fetch downloaded is published', async () => {
  const sim = await startSimWeb({
    seed: 1,
    docs: 100,
    plds: 10,
    latencyScale: 0,
    faults: 0,
    now: AUDIT_START,
  });
  try {
    const week = {
      kernel: ['redirect-chain', 'redirect-too-long', 'see-other'].map((name) => SCENARIOS[name].url),
      at: AUDIT_START,
      adaptiveRounds: 0,
      config: distributedConfig(sim, { delayMs: 300 }),
    };
    const published = async (root: string) =>
      (await publishedContent(join(root, '2026-01-05'))).documents.map((l) => l.split(' ')[0]);
    const one = join(work, 'seed-one');
    assert.equal((await oneProcessWeek(sim, one, week)).status, 'published');
    assert.deepEqual(await published(one), [...week.kernel].sort());
    const coordinated = join(work, 'seed-coordinated');
    const { outcome } = await coordinatedWeek(sim, coordinated, week, await server.database('seed'), 2);
    assert.equal(outcome.status, 'published');
    assert.deepEqual(await published(coordinated), [...week.kernel].sort());
  } finally {
    await sim.close();
  }
});
