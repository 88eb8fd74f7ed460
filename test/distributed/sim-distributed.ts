/**
 * Weekly snapshots of the simulated Web crawled through a real coordinator: the same run as
 * test/observe/sim-weekly.ts, with `crawl` set to the coordinator and workers beside it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CrawlConfig, clockStartingAt, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { coordinatedCrawl, runWorker } from '../../pipeline/distributed/index.ts';
import { runWeeklySnapshot, type WeeklyOutcome } from '../../pipeline/observe/index.ts';
import type { SimWeb } from '../../pipeline/simweb/index.ts';
import { simCrawlConfig } from '../observe/sim-weekly.ts';

/** What both modes crawl with in these tests: no archive and no re-visit validators (workers keep neither yet). */
export function distributedConfig(sim: SimWeb, over: Partial<CrawlConfig> = {}): CrawlConfig {
  return simCrawlConfig(sim, { warc: false, conditional: false, ...over });
}

export interface WeekRun {
  readonly kernel: readonly string[];
  readonly at: number;
  readonly adaptiveRounds: number;
  readonly config: CrawlConfig;
}

/** A fresh snapshots root. */
export const freshRoot = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** The week in one process. */
export function oneProcessWeek(sim: SimWeb, root: string, w: WeekRun): Promise<WeeklyOutcome> {
  sim.setClock(w.at);
  return runWeeklySnapshot({
    root,
    config: w.config,
    policy: 'longest-first',
    logger: silentLogger,
    clock: clockStartingAt(w.at),
    kernel: w.kernel,
    adaptiveRounds: w.adaptiveRounds,
  });
}

/** The week through the coordinator at `url`; `workers` in-process workers crawl it and stop once it is published. */
export async function coordinatedWeek(
  sim: SimWeb,
  root: string,
  w: WeekRun,
  url: string,
  workers: number,
): Promise<{ outcome: WeeklyOutcome; recorded: number[] }> {
  sim.setClock(w.at);
  const stop = new AbortController();
  const running = Array.from({ length: workers }, (_, i) =>
    runWorker({
      coordinator: url,
      id: `test-worker-${i}`,
      leaseMs: 5000,
      clock: systemClock,
      logger: silentLogger,
      signal: stop.signal,
    }),
  );
  try {
    const outcome = await runWeeklySnapshot({
      root,
      config: w.config,
      policy: 'longest-first',
      logger: silentLogger,
      clock: clockStartingAt(w.at),
      kernel: w.kernel,
      adaptiveRounds: w.adaptiveRounds,
      crawl: coordinatedCrawl(url),
    });
    return { outcome, recorded: await stopAll() };
  } finally {
    await stopAll().catch(() => {});
  }
  async function stopAll() {
    stop.abort();
    return Promise.all(running);
  }
}
