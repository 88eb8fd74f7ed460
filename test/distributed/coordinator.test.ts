import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { firstDifferences, publishedContent } from '../soak/published-content.ts';
import { archiveRecords, revisitColumns } from './archive-content.ts';
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
let referenceArchive: string[];
/** The snapshots folder holding the one-process first week. */
let firstWeek: string;

before(async () => {
  pg = await startPostgres();
  sim = await startSimWeb({ seed: 11, docs: 400, plds: 30, latencyScale: 0, faults: 1, now: W0 });
  week = {
    kernel: rdfDocuments(sim, W0).slice(0, 120),
    at: W0,
    adaptiveRounds: 2,
    config: distributedConfig(sim),
  };
  firstWeek = freshRoot('one-process-');
  const outcome = await oneProcessWeek(sim, firstWeek, week);
  assert.equal(outcome.status, 'published');
  reference = await publishedContent(join(firstWeek, '2026-01-05'));
  referenceArchive = await archiveRecords(join(firstWeek, '2026-01-05'));
});

after(async () => {
  await sim?.close();
  await pg?.stop();
});

for (const workers of [1, 3]) {
  test(`${workers} worker(s) publish the documents, quads and archive of the one-process snapshot`, async () => {
    const root = freshRoot(`distributed-${workers}-`);
    // each test its own database, as each observatory could have
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
    // the same WARC records per URL (robots.txt, hops, contexts, responses, requests), and pointers that open them
    const folder = join(root, '2026-01-05');
    assert.ok(referenceArchive.length > content.documents.length);
    assert.deepEqual(firstDifferences(referenceArchive, await archiveRecords(folder)), []);
    await verifySnapshot(folder);
  });
}

test('the second week through the coordinator re-visits the kernel as one process does: 304s carried over, their links followed', async () => {
  const second = { ...week, at: W0 + WEEK };
  const copy = (prefix: string) => {
    const root = freshRoot(prefix);
    cpSync(firstWeek, root, { recursive: true });
    return root;
  };
  const one = copy('second-one-');
  assert.equal((await oneProcessWeek(sim, one, second)).status, 'published');
  const root = copy('second-distributed-');
  const url = await pg.database('second_week');
  const { outcome } = await coordinatedWeek(sim, root, second, url, 2);
  assert.equal(outcome.status, 'published');
  const [a, b] = [join(one, '2026-01-12'), join(root, '2026-01-12')];
  const revisits = await revisitColumns(a);
  assert.ok(
    revisits.some((line) => line.includes(' not_modified 2026-01-05')),
    'some 304s carried over',
  );
  assert.deepEqual(firstDifferences(revisits, await revisitColumns(b)), []);
  const [expected, content] = [await publishedContent(a), await publishedContent(b)];
  assert.deepEqual(firstDifferences(expected.documents, content.documents), []);
  assert.deepEqual(firstDifferences(expected.quads, content.quads), []);
  assert.deepEqual(firstDifferences(await archiveRecords(a), await archiveRecords(b)), []);
  await verifySnapshot(b);
});
