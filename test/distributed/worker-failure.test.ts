/**
 * Workers that fail. A worker that stopped on an unexpected error left the coordinator waiting for
 * ever without a word (issue #31: a NUL byte in a context killed every worker, and the snapshot
 * command sat silent). Now the worker leaves its error in the database, the coordinator logs it and
 * that no worker crawls, and a worker started afterwards takes the PLDs over and the crawl
 * publishes the one-process snapshot. A value PostgreSQL refuses (a data exception, whatever its
 * cause) costs that one document, recorded as its `internal` failure, never the worker. The
 * failures are injected with triggers on the result table, so they happen where a real one would.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { clockStartingAt, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { coordinatedCrawl, runWorker } from '../../pipeline/distributed/index.ts';
import { openPool } from '../../pipeline/distributed/pool.ts';
import { runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { firstDifferences, type PublishedContent, publishedContent } from '../soak/published-content.ts';
import { query, startPostgres, type TestPostgres } from './postgres.ts';
import {
  distributedConfig,
  freshRoot,
  oneProcessWeek,
  type WeekRun,
  withWorkers,
} from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';
/** The coordinator looks at its workers every 100 ms and says that none crawls after 300 ms. */
const WATCH = { everyMs: 100, noWorkerMs: 300, quietMs: 60_000, repeatMs: 60_000 };

let server: TestPostgres;
let sim: SimWeb;
let week: WeekRun;
let reference: PublishedContent;

before(async () => {
  server = await startPostgres();
  sim = await startSimWeb({ seed: 3, docs: 200, plds: 12, latencyScale: 0, faults: 1, now: W0 });
  week = {
    kernel: rdfDocuments(sim, W0).slice(0, 40),
    at: W0,
    adaptiveRounds: 1,
    config: distributedConfig(sim, { delayMs: 5, concurrency: 4 }),
  };
  const root = freshRoot('failure-one-');
  assert.equal((await oneProcessWeek(sim, root, week)).status, 'published');
  reference = await publishedContent(join(root, WEEK1));
});

after(async () => {
  await sim?.close();
  await server?.stop();
});

/** A database of the current schema with `sql` run on it (the triggers). */
async function database(name: string, sql: string): Promise<string> {
  const url = await server.database(name);
  await (await openPool(url, silentLogger)).end();
  await query(url, sql);
  return url;
}

/** A logger that keeps every line it is given (pino's JSON) for the test to read. */
function keptLogger() {
  const lines: Line[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

type Line = { msg: string; worker?: string; error?: string };

/** The index of the first line after `from` that `match` accepts, once there is one (polling). */
async function logged(lines: readonly Line[], match: (line: Line) => boolean, from = -1): Promise<number> {
  for (;;) {
    const at = lines.findIndex((line, i) => i > from && match(line));
    if (at >= 0) return at;
    await systemClock.sleep(20);
  }
}

test('a worker that stops on an error is reported by the coordinator, and a worker started later publishes the one-process snapshot', async () => {
  const url = await database(
    'failing',
    `CREATE FUNCTION doom() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'injected failure recording %', NEW.url; END $$;
     CREATE TRIGGER doom BEFORE INSERT ON result FOR EACH ROW WHEN (NEW.recorded_by = 'doomed')
       EXECUTE FUNCTION doom();`,
  );
  const { logger, lines } = keptLogger();
  sim.setClock(W0);
  const root = freshRoot('failure-coordinated-');
  const snapshot = runWeeklySnapshot({
    root,
    config: week.config,
    logger,
    clock: clockStartingAt(W0),
    kernel: week.kernel,
    adaptiveRounds: week.adaptiveRounds,
    crawl: coordinatedCrawl(url, WATCH),
  });
  const doomed = runWorker({
    coordinator: url,
    id: 'doomed',
    leaseMs: 5000,
    clock: systemClock,
    logger: silentLogger,
    signal: new AbortController().signal,
  });
  await assert.rejects(doomed, /injected failure recording/);
  const failed = await logged(
    lines,
    (l) =>
      l.msg.startsWith('worker stopped on an error') &&
      l.worker === 'doomed' &&
      /injected failure recording http/.test(l.error ?? ''),
  );
  await logged(lines, (l) => l.msg.startsWith('no worker is crawling'), failed);
  // the doomed worker gave its leases back: a worker started now crawls at once, every URL
  const { outcome, recorded } = await withWorkers(url, 1, () => snapshot);
  assert.equal(outcome.status, 'published');
  assert.ok(recorded[0] > 0);
  assert.ok(lines.some((l) => l.msg === 'workers crawl again'));
  const content = await publishedContent(join(root, WEEK1));
  assert.deepEqual(content.duplicateUrls, []);
  assert.deepEqual(firstDifferences(reference.documents, content.documents), []);
  assert.deepEqual(firstDifferences(reference.quads, content.quads), []);
});

test('a document whose outcome PostgreSQL refuses is recorded as its internal failure; the workers go on', async () => {
  // a round-1 document (at the plan's depth: its links are no candidates) that parsed
  const victim = reference.documents
    .map((line) => line.split(' '))
    .find(([, segment, , status, error]) => segment === 'adaptive' && status === '200' && error === '∅')?.[0];
  assert.ok(victim);
  const url = await database(
    'refused',
    `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION USING ERRCODE = '22021', MESSAGE = 'injected refusal'; END $$;
     CREATE TRIGGER refuse BEFORE INSERT ON result FOR EACH ROW
       WHEN (NEW.url = '${victim}' AND NEW.record NOT LIKE '%injected refusal%') EXECUTE FUNCTION refuse();`,
  );
  sim.setClock(W0);
  const root = freshRoot('refused-coordinated-');
  const { outcome, recorded } = await withWorkers(url, 2, () =>
    runWeeklySnapshot({
      root,
      config: week.config,
      logger: silentLogger,
      clock: clockStartingAt(W0),
      kernel: week.kernel,
      adaptiveRounds: week.adaptiveRounds,
      crawl: coordinatedCrawl(url),
    }),
  );
  assert.equal(outcome.status, 'published');
  const content = await publishedContent(join(root, WEEK1));
  assert.equal(
    recorded.reduce((a, b) => a + b, 0),
    content.documents.length,
  );
  const mine = (line: string) => line.startsWith(`${victim} `);
  const refused = content.documents.filter(mine);
  assert.equal(refused.length, 1);
  assert.match(refused[0], / internal /);
  // every other row as in one process
  assert.deepEqual(
    firstDifferences(
      reference.documents.filter((l) => !mine(l)),
      content.documents.filter((l) => !mine(l)),
    ),
    [],
  );
});
