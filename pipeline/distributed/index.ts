/**
 * The distributed mode: crawls coordinated through PostgreSQL (docs/distributed.md). The frontier,
 * per-PLD leases with their politeness state, and the results live in the database; workers on any
 * number of machines lease whole PLDs, and the coordinator (the snapshot command) starts rounds and
 * writes the results as the run's journal. Both fail with `unavailable` when the database goes away.
 */
import { coordinatedCrawl as coordinatedCrawlOf } from './coordinate.ts';
import { whileConnected } from './pool.ts';
import { runWorker as serve, type WorkerOptions } from './worker.ts';

export type { WorkerOptions };

/** The coordinated crawl (coordinate.ts); the loss of its database is `unavailable` (pool.ts). */
export function coordinatedCrawl(
  ...args: Parameters<typeof coordinatedCrawlOf>
): ReturnType<typeof coordinatedCrawlOf> {
  const crawl = coordinatedCrawlOf(...args);
  return (options, name) => whileConnected(() => crawl(options, name));
}

/** A worker (worker.ts); the loss of its database is `unavailable` (pool.ts). */
export function runWorker(options: WorkerOptions): Promise<number> {
  return whileConnected(() => serve(options));
}
