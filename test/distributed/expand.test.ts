import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { type ExpansionOptions, runExpansion } from '../../pipeline/observe/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { CLI, runCli } from '../commands/cli-process.ts';
import { firstDifferences, publishedContent } from '../soak/published-content.ts';
import { archiveRecords } from './archive-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { distributedConfig, freshRoot, withWorkers } from './sim-distributed.ts';

let sim: SimWeb;
let server: TestPostgres;

before(async () => {
  server = await startPostgres();
  sim = await startSimWeb({ seed: 7, docs: 400, plds: 30, latencyScale: 0, faults: 1 });
});

after(async () => {
  await sim?.close();
  await server?.stop();
});

/** Two 2-hop crawls around the simulated Web's core seeds, archived beside their journals. */
function expansion(workDir: string): ExpansionOptions {
  return {
    seeds: sim.coreSeeds,
    repeat: 2,
    hops: 2,
    archive: true,
    workDir,
    config: distributedConfig(sim),
    clock: systemClock,
    logger: silentLogger,
  };
}

test('an expansion through the coordinator with 2 workers finds the one-process kernel, with the same archive', async () => {
  const one = freshRoot('expand-one-');
  const reference = await runExpansion(expansion(one));
  assert.equal(reference.complete, true);
  const url = await server.database('expand');
  const distributed = freshRoot('expand-distributed-');
  const { outcome, recorded } = await withWorkers(url, 2, () =>
    runExpansion({ ...expansion(distributed), crawl: coordinatedCrawl(url) }),
  );
  assert.equal(outcome.complete, true);
  assert.ok(reference.kernel.length > sim.coreSeeds.length, 'the crawls went beyond the seeds');
  assert.deepEqual(firstDifferences(reference.kernel, outcome.kernel), []);
  assert.deepEqual(outcome.plds, reference.plds);
  assert.deepEqual(
    outcome.crawls.map((c) => c.documents),
    reference.crawls.map((c) => c.documents),
  );
  assert.equal(
    recorded.reduce((a, b) => a + b, 0),
    outcome.crawls.reduce((a, c) => a + c.documents, 0),
  );
  for (const crawl of ['crawl-1', 'crawl-2']) {
    const [a, b] = [join(one, crawl, 'warc'), join(distributed, crawl, 'warc')];
    assert.deepEqual(firstDifferences(await archiveRecords(a), await archiveRecords(b)), [], crawl);
  }
});

test('observatory expand --coordinator publishes what an `observatory worker` crawls, archive verified', async () => {
  const url = await server.database('expand_cli');
  const worker = spawn(process.execPath, [CLI, 'worker', '--coordinator', url, '--id', 'cli'], {
    stdio: 'ignore',
  });
  try {
    const dir = freshRoot('expand-cli-');
    const seeds = join(dir, 'core.txt');
    writeFileSync(seeds, `${sim.coreSeeds.join('\n')}\n`);
    const run = await runCli([
      'expand',
      ...['--seeds', seeds, '--kernel', join(dir, 'kernel.txt'), '--out', join(dir, 'snapshots')],
      ...['--repeat', '1', '--hops', '2', '--now', '2026-01-05T00:00:00Z'],
      ...['--resolve', sim.resolveRule, '--allow-private', '--delay', '0.005', '--coordinator', url],
    ]);
    assert.equal(run.status, 0, run.stderr);
    const m = /published (\S+)/.exec(run.stdout);
    assert.ok(m, run.stdout);
    await verifySnapshot(m[1]);
    const kernel = readFileSync(join(dir, 'kernel.txt'), 'utf8').trim().split('\n');
    assert.ok(kernel.length > sim.coreSeeds.length, `${kernel.length} kernel URIs`);
    const content = await publishedContent(m[1]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client
      .query('SELECT count(*)::int AS n FROM result WHERE recorded_by = $1', ['cli'])
      .finally(() => client.end());
    assert.equal(rows[0].n, content.documents.length);
  } finally {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
});
