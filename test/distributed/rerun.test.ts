import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { createCrawlTools, JOURNAL_FILE } from '../../pipeline/crawl/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { archiveRecords } from './archive-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { distributedConfig, freshRoot, withWorkers } from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
let sim: SimWeb;
let server: TestPostgres;

before(async () => {
  server = await startPostgres();
  sim = await startSimWeb({ seed: 3, docs: 200, plds: 20, latencyScale: 0, faults: 1, now: W0 });
});

after(async () => {
  await sim?.close();
  await server?.stop();
});

test('a coordinated crawl run again once written (its publish interrupted) reads its journal and archives nothing twice', async () => {
  const url = await server.database('rerun');
  const dir = freshRoot('rerun-');
  const config = distributedConfig(sim);
  const seeds = rdfDocuments(sim, W0).slice(0, 40);
  /** The crawl as crawlAndPublish runs it: the run's archive open, the coordinated crawl, one worker. */
  const crawl = async () => {
    const tools = createCrawlTools(config, systemClock, { dir: join(dir, 'warc'), prefix: 'rerun' });
    try {
      return await withWorkers(url, 1, () =>
        coordinatedCrawl(url)(
          {
            plan: { seeds, maxDepth: 0, maxDocuments: 40, maxRounds: 1, segmentFor: () => 'kernel' },
            config,
            fetcher: tools.fetcher,
            loadContext: tools.loadContext,
            dir,
            clock: systemClock,
            logger: silentLogger,
            archive: tools.archive,
          },
          'rerun',
        ),
      );
    } finally {
      await tools.close();
    }
  };
  const first = await crawl();
  assert.equal(first.outcome.complete, true);
  const journal = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
  const archived = await archiveRecords(join(dir, 'warc'));
  assert.ok(archived.length >= seeds.length);
  const again = await crawl();
  assert.equal(again.outcome.complete, true);
  assert.deepEqual(again.recorded, [0]);
  assert.equal(again.outcome.stats.documents, first.outcome.stats.documents);
  assert.equal(readFileSync(join(dir, JOURNAL_FILE), 'utf8'), journal);
  assert.deepEqual(await archiveRecords(join(dir, 'warc')), archived);
});
