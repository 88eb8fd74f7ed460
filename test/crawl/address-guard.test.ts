import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCENARIOS, type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { crawlSim, planFor, simConfig } from './sim-crawl.ts';

/** The address guard seen through the crawler: loopback seeds are refused unless allowPrivate. */
let sim: SimWeb;

before(async () => {
  sim = await startSimWeb({ seed: 5, docs: 100, plds: 10, latencyScale: 0 });
});

after(() => sim.close());

test('seeds on localhost or 127.0.0.1 without allowPrivate are blocked_address and never reach the server', async () => {
  const seeds = [`http://localhost:${sim.port}/ok`, `${sim.origin}/ok`, SCENARIOS.ok.url];
  sim.clearRequestLog();
  const { records } = await crawlSim(simConfig(sim, { allowPrivate: false, delayMs: 10 }), planFor(seeds, 0));
  assert.deepEqual(
    seeds.map((url) => [url, records.get(url)?.error]),
    seeds.map((url) => [url, 'blocked_address']),
    'a --resolve rule to 127.0.0.1 is blocked like a loopback literal',
  );
  assert.deepEqual(sim.requestLog(), []);
});

test('with allowPrivate the same resolve rule reaches the simulated Web', async () => {
  const { records } = await crawlSim(simConfig(sim, { delayMs: 10 }), planFor([SCENARIOS.ok.url], 0));
  assert.equal(records.get(SCENARIOS.ok.url)?.statements, SCENARIOS.ok.expect.statements);
});
