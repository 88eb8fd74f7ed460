import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { clockStartingAt, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { coordinatedCrawl, runWorker } from '../../pipeline/distributed/index.ts';
import { runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { CLI, runCli, snapshotCliArgs } from '../commands/cli-process.ts';
import { politenessViolations } from '../crawl/sim-crawl.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { firstDifferences, publishedContent } from '../soak/published-content.ts';
import { query, startPostgres, type TestPostgres } from './postgres.ts';
import {
  coordinatedWeek,
  distributedConfig,
  freshRoot,
  oneProcessWeek,
  type WeekRun,
} from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
const DELAY = 60;
let server: TestPostgres;

before(async () => {
  server = await startPostgres();
});

after(() => server?.stop());

/** A Web of 400 documents on 30 PLDs, and the week crawled on it with a delay that the server can check. */
async function web(concurrency = 64): Promise<{ sim: SimWeb; week: WeekRun }> {
  const sim = await startSimWeb({ seed: 5, docs: 400, plds: 30, latencyScale: 0, faults: 1, now: W0 });
  const week = {
    kernel: rdfDocuments(sim, W0).slice(0, 100),
    at: W0,
    adaptiveRounds: 2,
    config: distributedConfig(sim, { delayMs: DELAY, concurrency }),
  };
  return { sim, week };
}

test('three workers share the PLDs, keep every PLD a delay apart and read each robots.txt once at the server', async () => {
  // few leases per worker, so that no worker can hold every PLD
  const { sim, week } = await web(4);
  try {
    const url = await server.database('polite');
    const { outcome, recorded } = await coordinatedWeek(sim, freshRoot('polite-'), week, url, 3);
    assert.equal(outcome.status, 'published');
    assert.ok(recorded.filter((n) => n > 0).length >= 2, `recorded per worker: ${recorded}`);
    const log = sim.requestLog();
    assert.deepEqual(politenessViolations(log, DELAY), []);
    // PLDs changed hands (each round leases them afresh), and robots.txt moved with the lease
    const shared = await query(
      url,
      'SELECT pld FROM result GROUP BY pld HAVING count(DISTINCT recorded_by) > 1 ORDER BY pld',
    );
    assert.ok(shared.length > 0, 'some PLD was crawled by two workers');
    const robots = new Map<string, number>();
    for (const e of log.filter((e) => e.path === '/robots.txt')) {
      const host = `${e.scheme}://${e.host}`;
      robots.set(host, (robots.get(host) ?? 0) + 1);
    }
    assert.ok(robots.size > 0);
    assert.deepEqual(
      [...robots].filter(([, n]) => n > 1),
      [],
    );
  } finally {
    await sim.close();
  }
});

/** Resolves once `count` URLs are recorded by `worker` (polling the coordinator); rejects if `child` exits first. */
async function recordedBy(url: string, worker: string, count: number, child: ChildProcess): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    while (child.exitCode === null && child.signalCode === null) {
      // the tables appear once the coordinator or a worker has connected
      const { rows } = await client
        .query('SELECT count(*)::int AS n FROM result WHERE recorded_by = $1', [worker])
        .catch((error: { code?: string }) => {
          if (error.code === '42P01') return { rows: [{ n: 0 }] };
          throw error;
        });
      if (rows[0].n >= count) return;
      await systemClock.sleep(20);
    }
    throw new Error(`worker ${worker} exited (${child.exitCode}) before recording ${count} URLs`);
  } finally {
    await client.end();
  }
}

test('a worker killed mid-crawl loses nothing: its leases expire, another finishes, every URL once', async () => {
  const { sim, week } = await web();
  try {
    const reference = freshRoot('reference-');
    assert.equal((await oneProcessWeek(sim, reference, week)).status, 'published');
    sim.clearRequestLog();
    const url = await server.database('killed');
    const root = freshRoot('killed-');
    const snapshot = runWeeklySnapshot({
      root,
      config: week.config,
      logger: silentLogger,
      clock: clockStartingAt(W0),
      kernel: week.kernel,
      adaptiveRounds: week.adaptiveRounds,
      crawl: coordinatedCrawl(url),
    });
    const victim = spawn(
      process.execPath,
      [CLI, 'worker', '--coordinator', url, '--lease', '2s', '--id', 'victim'],
      {
        stdio: 'ignore',
      },
    );
    const died = new Promise((resolve) => victim.once('exit', resolve));
    try {
      await recordedBy(url, 'victim', 10, victim);
    } finally {
      victim.kill('SIGKILL');
      await died;
    }
    const stop = new AbortController();
    const heir = runWorker({
      coordinator: url,
      id: 'heir',
      leaseMs: 2000,
      clock: systemClock,
      logger: silentLogger,
      signal: stop.signal,
    });
    // a heir that fails fails the test rather than leave the snapshot waiting for ever
    const [outcome, heirRecorded] = await Promise.all([snapshot.finally(() => stop.abort()), heir]);
    assert.equal(outcome.status, 'published');
    assert.ok(heirRecorded > 0, 'the heir crawled what the victim left');
    const expected = await publishedContent(join(reference, '2026-01-05'));
    const content = await publishedContent(join(root, '2026-01-05'));
    assert.deepEqual(content.duplicateUrls, []);
    assert.deepEqual(firstDifferences(expected.documents, content.documents), []);
    assert.deepEqual(firstDifferences(expected.quads, content.quads), []);
    // the victim's requests in flight and the heir's first ones after the take-over stay a delay apart
    assert.deepEqual(politenessViolations(sim.requestLog(), DELAY), []);
  } finally {
    await sim.close();
  }
});

test('observatory snapshot --coordinator publishes what `observatory worker`s crawl; a bad URL exits 2', async () => {
  const sim = await startSimWeb({ seed: 3, docs: 200, plds: 12, latencyScale: 0, faults: 0, now: W0 });
  const url = await server.database('cli');
  const worker = spawn(process.execPath, [CLI, 'worker', '--coordinator', url, '--id', 'cli'], {
    stdio: 'ignore',
  });
  try {
    const dir = freshRoot('cli-');
    const kernel = join(dir, 'kernel.txt');
    writeFileSync(kernel, `${rdfDocuments(sim, W0).slice(0, 30).join('\n')}\n`);
    const args = snapshotCliArgs({
      kernel,
      out: join(dir, 'snapshots'),
      now: '2026-01-05',
      resolve: sim.resolveRule,
    });
    const bad = await runCli([...args, '--coordinator', 'mysql://db/x']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--coordinator/);
    const run = await runCli([...args, '--delay', '0.005', '--adaptive-rounds', '1', '--coordinator', url]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /published .*2026-01-05/);
    const content = await publishedContent(join(dir, 'snapshots', '2026-01-05'));
    assert.ok(content.documents.length >= 30);
    assert.deepEqual(content.duplicateUrls, []);
  } finally {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
    await sim.close();
  }
});
