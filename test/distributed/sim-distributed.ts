/**
 * Weekly snapshots of the simulated Web crawled through a real coordinator: the same run as
 * test/observe/sim-weekly.ts, with `crawl` set to the coordinator and workers beside it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CrawlConfig,
  clockStartingAt,
  payLevelDomain,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import { coordinatedCrawl, runWorker } from '../../pipeline/distributed/index.ts';
import { runWeeklySnapshot, type WeeklyOutcome } from '../../pipeline/observe/index.ts';
import type { RequestLogEntry, SimWeb } from '../../pipeline/simweb/index.ts';
import { simCrawlConfig } from '../observe/sim-weekly.ts';
import { firstDifferences, type PublishedContent, publishedContent } from '../soak/published-content.ts';

/** What both modes crawl with in these tests: the simulated Web's config, archive and re-visit validators on. */
export function distributedConfig(sim: SimWeb, over: Partial<CrawlConfig> = {}): CrawlConfig {
  return simCrawlConfig(sim, over);
}

export interface WeekRun {
  readonly kernel: readonly string[];
  readonly at: number;
  readonly adaptiveRounds: number;
  readonly config: CrawlConfig;
  /** The re-visit strategy (default: the schedule stage's). */
  readonly strategy?: string;
}

/** A fresh snapshots root. */
export const freshRoot = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** The weekly snapshot's options for `w`, the same in one process and through the coordinator. */
function weekOptions(root: string, w: WeekRun) {
  return {
    root,
    config: w.config,
    logger: silentLogger,
    clock: clockStartingAt(w.at),
    kernel: w.kernel,
    adaptiveRounds: w.adaptiveRounds,
    strategy: w.strategy,
  };
}

/** The week in one process. */
export function oneProcessWeek(sim: SimWeb, root: string, w: WeekRun): Promise<WeeklyOutcome> {
  sim.setClock(w.at);
  return runWeeklySnapshot(weekOptions(root, w));
}

/**
 * Runs `run` with `workers` in-process workers crawling for the coordinator at `url`, stops them
 * when it is done, and returns what it returned with the URLs each worker recorded. A worker that
 * fails fails it at once, rather than leave the coordinator waiting for URLs nobody crawls.
 */
export async function withWorkers<T>(
  url: string,
  workers: number,
  run: () => Promise<T>,
): Promise<{ outcome: T; recorded: number[] }> {
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
  const failed = Promise.race(running).then(() => new Promise<never>(() => {}));
  try {
    const outcome = await Promise.race([run(), failed]);
    return { outcome, recorded: await stopAll() };
  } finally {
    await stopAll().catch(() => {});
  }
  async function stopAll() {
    stop.abort();
    return Promise.all(running);
  }
}

/** The week through the coordinator at `url`; `workers` in-process workers crawl it and stop once it is published. */
export function coordinatedWeek(
  sim: SimWeb,
  root: string,
  w: WeekRun,
  url: string,
  workers: number,
): Promise<{ outcome: WeeklyOutcome; recorded: number[] }> {
  sim.setClock(w.at);
  return withWorkers(url, workers, () =>
    runWeeklySnapshot({ ...weekOptions(root, w), crawl: coordinatedCrawl(url) }),
  );
}

/**
 * The week through the coordinator at `url` with three in-process workers, asserted to publish the
 * documents and quads of `expected` (the one-process snapshot), at least two workers recording.
 */
export async function assertThreeWorkersPublish(
  sim: SimWeb,
  root: string,
  w: WeekRun,
  url: string,
  expected: PublishedContent,
): Promise<PublishedContent> {
  const { outcome, recorded } = await coordinatedWeek(sim, root, w, url, 3);
  assert.equal(outcome.status, 'published');
  assert.ok(recorded.filter((n) => n > 0).length >= 2, `recorded per worker: ${recorded}`);
  const content = await publishedContent(join(root, '2026-01-05'));
  assert.deepEqual(firstDifferences(expected.documents, content.documents), []);
  assert.deepEqual(firstDifferences(expected.quads, content.quads), []);
  return content;
}

/** The server log's entry for a request a test's own HTTP server received (as the simulated Web logs it). */
export function requestEntry(seq: number, req: IncomingMessage): RequestLogEntry {
  const host = (req.headers.host ?? '').split(':')[0];
  return {
    seq,
    status: null,
    startedAt: performance.timeOrigin + performance.now(),
    virtualAt: 0,
    scheme: 'http',
    host,
    pld: payLevelDomain(host),
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    userAgent: req.headers['user-agent'] ?? null,
    accept: req.headers.accept ?? null,
    ifNoneMatch: req.headers['if-none-match'] ?? null,
    ifModifiedSince: req.headers['if-modified-since'] ?? null,
  };
}
