/**
 * Workers crawl under the product token of the crawl's config, which they read from the
 * coordinator (they have no crawl options of their own): their User-Agent and the robots.txt
 * groups they obey, as the simulated Web's server saw the requests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { userAgentFor } from '../../pipeline/core/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { coordinatedWeek, distributedConfig, freshRoot } from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
/** robots.txt: `User-agent: LinkedDataObservatory / Disallow: /`, and `User-agent: * / Allow: /`. */
const BLOCKS_OURS = 'http://token-block.robots-lab.org/doc';
/** robots.txt: `User-agent: Googlebot / User-agent: BadBot / Disallow: /`, and `*` disallows /private/ only. */
const BLOCKS_BADBOT = 'http://other-token.robots-lab.org/doc';

let server: TestPostgres;
let sim: SimWeb;

before(async () => {
  server = await startPostgres();
  sim = await startSimWeb({ seed: 3, docs: 50, plds: 10, latencyScale: 0, faults: 0, now: W0 });
});

after(async () => {
  await sim?.close();
  await server?.stop();
});

test("workers send the coordinator's product token and obey its robots.txt group, not ours", async () => {
  const week = {
    kernel: [BLOCKS_OURS, BLOCKS_BADBOT],
    at: W0,
    adaptiveRounds: 0,
    config: distributedConfig(sim, { productToken: 'BadBot' }),
  };
  sim.clearRequestLog();
  const { outcome } = await coordinatedWeek(sim, freshRoot('product-token-'), week, server.url, 2);
  assert.equal(outcome.status, 'published');
  const log = sim.requestLog();
  assert.deepEqual(log.map((e) => `${e.host} ${e.path}`).sort(), [
    'other-token.robots-lab.org /robots.txt',
    'token-block.robots-lab.org /doc',
    'token-block.robots-lab.org /robots.txt',
  ]);
  assert.deepEqual([...new Set(log.map((e) => e.userAgent))], [userAgentFor('BadBot')]);
});
