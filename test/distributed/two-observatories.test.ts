/**
 * Two observatories on one PostgreSQL database (issue #31): the same week, different snapshot
 * roots and kernels. Crawls were named by the run alone, so the second coordinator found the
 * first one's crawl, said "published", and its snapshot held the first one's kernel documents and
 * statements, none of its own. A crawl is now the run's own (its id kept in the run's folder), the
 * workers serve both, and each snapshot is its one-process snapshot. The first observatory's
 * coordinator is stopped mid-crawl and resumed after the second published: a crawl waiting for its
 * coordinator must not keep the workers from the other one's, and the resumed run finds its crawl.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { clockStartingAt, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
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

let server: TestPostgres;
let sim: SimWeb;
/** The two observatories' weeks: their kernels are disjoint. */
let weeks: [WeekRun, WeekRun];
let references: [PublishedContent, PublishedContent];

before(async () => {
  server = await startPostgres();
  sim = await startSimWeb({ seed: 7, docs: 300, plds: 16, latencyScale: 0, faults: 1, now: W0 });
  const documents = rdfDocuments(sim, W0);
  const config = distributedConfig(sim, { delayMs: 5, concurrency: 4 });
  weeks = [
    { kernel: documents.slice(0, 30), at: W0, adaptiveRounds: 1, config },
    { kernel: documents.slice(30, 60), at: W0, adaptiveRounds: 1, config },
  ];
  const published = [];
  for (const week of weeks) {
    const root = freshRoot('observatory-one-');
    assert.equal((await oneProcessWeek(sim, root, week)).status, 'published');
    published.push(await publishedContent(join(root, WEEK1)));
  }
  references = published as [PublishedContent, PublishedContent];
});

after(async () => {
  await sim?.close();
  await server?.stop();
});

/** The week `w` under `root` through the coordinator at `url`. */
function week(root: string, w: WeekRun, url: string, signal?: AbortSignal) {
  return runWeeklySnapshot({
    root,
    config: w.config,
    logger: silentLogger,
    clock: clockStartingAt(W0),
    kernel: w.kernel,
    adaptiveRounds: w.adaptiveRounds,
    crawl: coordinatedCrawl(url),
    signal,
  });
}

test('two observatories crawl the same week through one database: each publishes its own kernel, as one process does', async () => {
  const url = await server.database('shared');
  const [rootA, rootB] = [freshRoot('observatory-a-'), freshRoot('observatory-b-')];
  sim.setClock(W0);
  const { outcome } = await withWorkers(url, 2, async () => {
    // A's coordinator stops once its crawl is under way: the crawl stays, waiting for it
    const stop = new AbortController();
    const stopped = week(rootA, weeks[0], url, stop.signal);
    for (;;) {
      const [{ n }] = await query(url, 'SELECT count(*)::int AS n FROM result').catch(() => [{ n: 0 }]);
      if ((n as number) >= 5) break;
      await systemClock.sleep(20);
    }
    stop.abort();
    assert.equal((await stopped).status, 'stopped');
    // B's crawl, meanwhile, gets the workers and publishes
    const b = await week(rootB, weeks[1], url);
    assert.equal(b.status, 'published');
    // A resumes its own crawl
    return week(rootA, weeks[0], url);
  });
  assert.equal(outcome.status, 'published');
  const crawls = await query(url, `SELECT id, state FROM crawl ORDER BY created_at`);
  assert.equal(crawls.length, 2);
  for (const crawl of crawls) {
    assert.match(String(crawl.id), /^2026-01-05@[0-9a-f-]{36}$/);
    assert.equal(crawl.state, 'done');
  }
  for (const [i, root] of [rootA, rootB].entries()) {
    const content = await publishedContent(join(root, WEEK1));
    assert.deepEqual(content.duplicateUrls, [], root);
    assert.deepEqual(firstDifferences(references[i].documents, content.documents), [], root);
    assert.deepEqual(firstDifferences(references[i].quads, content.quads), [], root);
  }
});
