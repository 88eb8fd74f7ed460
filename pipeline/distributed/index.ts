/**
 * The distributed mode: crawls coordinated through PostgreSQL (docs/distributed.md). The frontier,
 * per-PLD leases with their politeness state, and the results live in the database; workers on any
 * number of machines lease whole PLDs, and the coordinator (the snapshot command) starts rounds and
 * writes the results as the run's journal.
 */
export { coordinatedCrawl } from './coordinate.ts';
export { runWorker, type WorkerOptions } from './worker.ts';
