import { clockStartingAt, crawlConfig, parseResolveRule, silentLogger } from '../../pipeline/core/index.ts';
import { runTick, runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { HOSTILE_HOST, HOSTILE_URLS, startHostileSite } from './hostile-site.ts';

const START = Date.UTC(2026, 10, 2);
const WEEK = 7 * 86_400_000;
const SLOT = 10.5 * 3_600_000;

/**
 * A small real series in `root`: weekly snapshots of the simulated Web (its RDF documents as the
 * kernel, plus two hostile documents) and a tick in every slot of every week, crawled by the real pipeline
 * on a virtual clock. Weeks `from`..`weeks - 1` are crawled, so a series can be extended.
 */
export async function buildSeries(root: string, weeks: number, from = 0): Promise<void> {
  const sim = await startSimWeb({ seed: 11, docs: 160, plds: 16, latencyScale: 0, faults: 0.5, now: START });
  const hostile = await startHostileSite();
  try {
    const config = crawlConfig({
      resolve: [
        parseResolveRule(`${HOSTILE_HOST}=127.0.0.1:${hostile.port}`),
        parseResolveRule(sim.resolveRule),
      ],
      allowPrivate: true,
      delayMs: 2,
      timeoutMs: 2000,
      maxAttempts: 1,
    });
    const context = (at: number) => ({
      root,
      config,
      clock: clockStartingAt(at),
      logger: silentLogger,
    });
    // every document that dereferences to RDF, so that the fast-changing ones climb levels and
    // ticks publish interval snapshots, as in a real year
    const kernel = sim
      .truth(START)
      .filter((r) => r.kind === 'document' && r.rdf)
      .map((r) => r.uri);
    for (let w = from; w < weeks; w++) {
      const at = START + w * WEEK;
      sim.setClock(at);
      await runWeeklySnapshot({
        ...context(at),
        kernel: [...kernel, ...HOSTILE_URLS],
        adaptiveRounds: 1,
      });
      // every slot of the week ticks; a tick publishes only when documents are due (their level rose)
      for (let slot = 1; slot < 16; slot++) {
        sim.setClock(at + slot * SLOT + 60_000);
        await runTick(context(at + slot * SLOT + 60_000));
      }
    }
  } finally {
    await sim.close();
    await new Promise((done) => hostile.server.close(done));
  }
}
