/**
 * The observe stage: runs one observation of the Web of Data end to end (crawl, publish, move
 * the re-visit schedule on) for the `snapshot` and `tick` commands and the demo, and the kernel
 * expansion (its crawls, each published, and the kernel), each under the snapshots folder's run
 * lock; and tells the health of a snapshots root (`status`).
 */
export type { ObserveContext } from './crawl-and-publish.ts';
export type { ExpansionOptions, ExpansionResult } from './expansion.ts';
export { claimExpansionWork, removeExpansionWork, runExpansion } from './expansion.ts';
export { expansionFiles, writeExpansion } from './expansion-report.ts';
export type { Health, HealthLimits } from './health.ts';
export { observatoryHealth } from './health.ts';
export type { TickContext, TickOutcome } from './tick.ts';
export { runTick } from './tick.ts';
export type { WeeklyOptions, WeeklyOutcome } from './weekly.ts';
export { DEFAULT_ADAPTIVE_ROUNDS, latestSchedule, runWeeklySnapshot } from './weekly.ts';
