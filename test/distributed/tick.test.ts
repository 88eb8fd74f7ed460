import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { clockStartingAt, silentLogger } from '../../pipeline/core/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { latestSchedule, runTick, type TickOutcome } from '../../pipeline/observe/index.ts';
import { dueUrls, SLOT_MS, WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { CLI, runCli } from '../commands/cli-process.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { firstDifferences, publishedContent } from '../soak/published-content.ts';
import { archiveRecords, revisitColumns } from './archive-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import {
  distributedConfig,
  freshRoot,
  oneProcessWeek,
  type WeekRun,
  withWorkers,
} from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
let sim: SimWeb;
let server: TestPostgres;
let week: WeekRun;
/**
 * A snapshots folder holding three weekly snapshots (DyLDO's levels: documents that changed every
 * week become due within the third) and nothing else: each tick runs on a copy.
 */
let weekly: string;
/** A minute into the first slot of the third week with kernel documents due. */
let at: number;
let due: number;

before(async () => {
  server = await startPostgres();
  sim = await startSimWeb({ seed: 11, docs: 400, plds: 30, latencyScale: 0, faults: 1, now: W0 });
  week = {
    kernel: rdfDocuments(sim, W0).slice(0, 150),
    at: W0,
    adaptiveRounds: 0,
    config: distributedConfig(sim),
    strategy: 'dyldo',
  };
  weekly = freshRoot('tick-weekly-');
  for (let w = 0; w < 3; w++) {
    assert.equal((await oneProcessWeek(sim, weekly, { ...week, at: W0 + w * WEEK })).status, 'published');
  }
  const start = W0 + 2 * WEEK;
  const schedule = await latestSchedule(weekly);
  const slot = Array.from({ length: 15 }, (_, i) => i + 1).find(
    (s) => dueUrls(schedule, start + s * SLOT_MS).length > 0,
  );
  assert.ok(slot !== undefined, 'some kernel documents are due within the third week');
  at = start + slot * SLOT_MS + 60_000;
  due = dueUrls(schedule, start + slot * SLOT_MS).length;
});

after(async () => {
  await sim?.close();
  await server?.stop();
});

/** A copy of the weekly folder for one tick. */
function copyOfWeek(prefix: string): string {
  const root = freshRoot(prefix);
  cpSync(weekly, root, { recursive: true });
  return root;
}

function tick(root: string, crawl?: ReturnType<typeof coordinatedCrawl>): Promise<TickOutcome> {
  sim.setClock(at);
  sim.clearRequestLog();
  return runTick({
    root,
    config: week.config,
    logger: silentLogger,
    clock: clockStartingAt(at),
    strategy: week.strategy,
    ...(crawl ? { crawl } : {}),
  });
}

function published(outcome: TickOutcome): string {
  assert.equal(outcome.status, 'published');
  if (outcome.status !== 'published') throw new Error('unreachable');
  return outcome.snapshot.folder;
}

/** Answers of the simulated Web since the last tick began, per status: `status xN`. */
function answers(): string[] {
  const counts = new Map<number | null, number>();
  for (const { status } of sim.requestLog()) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status} x${n}`).sort();
}

test('a tick through the coordinator with 2 workers publishes the documents, quads, re-visits and archive of the one-process tick', async () => {
  const referenceFolder = published(await tick(copyOfWeek('tick-one-')));
  const referenceAnswers = answers();
  const reference = await publishedContent(referenceFolder);
  assert.equal(reference.documents.length, due);
  const url = await server.database('tick');
  const { outcome, recorded } = await withWorkers(url, 2, () =>
    tick(copyOfWeek('tick-coordinated-'), coordinatedCrawl(url)),
  );
  // the workers sent the validators one process sends: the server answered as many 304s (and 200s)
  assert.ok(
    referenceAnswers.some((line) => line.startsWith('304 ')),
    `${referenceAnswers}`,
  );
  assert.deepEqual(answers(), referenceAnswers);
  const folder = published(outcome);
  assert.deepEqual(firstDifferences(await revisitColumns(referenceFolder), await revisitColumns(folder)), []);
  assert.deepEqual(firstDifferences(await archiveRecords(referenceFolder), await archiveRecords(folder)), []);
  await verifySnapshot(folder);
  const content = await publishedContent(folder);
  assert.deepEqual(content.duplicateUrls, []);
  assert.deepEqual(firstDifferences(reference.documents, content.documents), []);
  assert.deepEqual(firstDifferences(reference.quads, content.quads), []);
  assert.equal(
    recorded.reduce((a, b) => a + b, 0),
    content.documents.length,
  );
});

test('observatory tick --coordinator publishes what an `observatory worker` crawls; a bad URL exits 2', async () => {
  const url = await server.database('tick_cli');
  const worker = spawn(process.execPath, [CLI, 'worker', '--coordinator', url, '--id', 'cli'], {
    stdio: 'ignore',
  });
  try {
    const root = copyOfWeek('tick-cli-');
    const args = [
      'tick',
      ...['--out', root, '--now', new Date(at).toISOString()],
      ...['--resolve', sim.resolveRule, '--allow-private', '--delay', '0.001'],
    ];
    const bad = await runCli([...args, '--coordinator', 'mysql://db/x']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--coordinator/);
    sim.setClock(at);
    const run = await runCli([...args, '--coordinator', url]);
    assert.equal(run.status, 0, run.stderr);
    const m = /published (\S+): (\d+) due documents/.exec(run.stdout);
    assert.ok(m, run.stdout);
    assert.equal(Number(m[2]), due);
    const content = await publishedContent(m[1]);
    assert.equal(content.documents.length, due);
    assert.deepEqual(content.duplicateUrls, []);
    // the worker recorded them: the tick did crawl through the coordinator
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client
      .query('SELECT count(*)::int AS n FROM result WHERE recorded_by = $1', ['cli'])
      .finally(() => client.end());
    assert.equal(rows[0].n, due);
  } finally {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
});
