import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { firstDifferences, publishedContent } from '../soak/published-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import {
  coordinatedWeek,
  distributedConfig,
  freshRoot,
  oneProcessWeek,
  type WeekRun,
} from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
let sim: SimWeb;
let pg: TestPostgres;
let week: WeekRun;
let reference: Awaited<ReturnType<typeof publishedContent>>;

before(async () => {
  pg = await startPostgres();
  sim = await startSimWeb({ seed: 11, docs: 400, plds: 30, latencyScale: 0, faults: 1, now: W0 });
  week = {
    kernel: rdfDocuments(sim, W0).slice(0, 120),
    at: W0,
    adaptiveRounds: 2,
    config: distributedConfig(sim),
  };
  const root = freshRoot('one-process-');
  const outcome = await oneProcessWeek(sim, root, week);
  assert.equal(outcome.status, 'published');
  reference = await publishedContent(join(root, '2026-01-05'));
});

after(async () => {
  await sim?.close();
  await pg?.stop();
});

for (const workers of [1, 3]) {
  test(`${workers} worker(s) publish the documents and quads of the one-process snapshot`, async () => {
    const root = freshRoot(`distributed-${workers}-`);
    // each test its own database: the crawl is named by its week
    const url = await pg.database(`workers_${workers}`);
    const { outcome, recorded } = await coordinatedWeek(sim, root, week, url, workers);
    assert.equal(outcome.status, 'published');
    const content = await publishedContent(join(root, '2026-01-05'));
    assert.deepEqual(content.duplicateUrls, []);
    assert.deepEqual(firstDifferences(reference.documents, content.documents), []);
    assert.deepEqual(firstDifferences(reference.quads, content.quads), []);
    assert.equal(
      recorded.reduce((a, b) => a + b, 0),
      content.documents.length,
    );
  });
}
