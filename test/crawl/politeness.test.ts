import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { payLevelDomain, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { runExpansion } from '../../pipeline/observe/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { politenessViolations, simConfig } from './sim-crawl.ts';

const DELAY = 40;
const PER_PLD = 1;

/**
 * Requests in flight per PLD as the server sees them: from the moment a request arrives until its
 * response is closed, through Node's HTTP diagnostics channel (the server runs in this process).
 */
function watchInFlight(): { most: Map<string, number>; stop(): void } {
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  const onStart = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    if (request.url?.startsWith('/__sim/')) return;
    const pld = payLevelDomain((request.headers.host ?? '').replace(/:\d+$/, ''));
    const n = (now.get(pld) ?? 0) + 1;
    now.set(pld, n);
    most.set(pld, Math.max(most.get(pld) ?? 0, n));
    response.once('close', () => now.set(pld, (now.get(pld) ?? 1) - 1));
  };
  subscribe('http.server.request.start', onStart);
  return { most, stop: () => unsubscribe('http.server.request.start', onStart) };
}

test('a whole 2-hop expansion of a faulty simulated Web is polite at the server', async () => {
  const sim = await startSimWeb({ seed: 11, docs: 3000, plds: 120, faults: 3, latencyScale: 0 });
  const inFlight = watchInFlight();
  try {
    const result = await runExpansion({
      seeds: sim.coreSeeds,
      repeat: 1,
      hops: 2,
      workDir: mkdtempSync(join(tmpdir(), 'polite-')),
      config: simConfig(sim, {
        delayMs: DELAY,
        perPld: PER_PLD,
        concurrency: 32,
        timeoutMs: 1500,
        crawlDelayCapMs: 300,
      }),
      clock: systemClock,
      logger: silentLogger,
    });
    assert.equal(result.complete, true);
    const log = sim.requestLog();
    const kinds = Object.keys(result.crawls[0].errors);
    assert.ok(kinds.length >= 5, `the faults were met: ${kinds.join(', ')}`);
    assert.ok(
      log.some((e) => e.path.endsWith('/robots.txt')),
      'robots.txt requests are in the log',
    );
    assert.ok(
      log.some((e) => e.status !== null && e.status >= 301 && e.status <= 308),
      'redirect hops too',
    );
    assert.deepEqual(politenessViolations(log, DELAY), []);
    const crowded = [...inFlight.most].filter(([, n]) => n > PER_PLD);
    assert.deepEqual(crowded, [], 'requests in flight at once per PLD');
  } finally {
    inFlight.stop();
    await sim.close();
  }
});
