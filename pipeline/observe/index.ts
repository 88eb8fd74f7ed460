/**
 * The observe stage: runs one observation of the Web of Data end to end (crawl, publish, move
 * the re-visit schedule on) for the `snapshot` and `tick` commands and the demo.
 */
export type { ObserveContext } from './crawl-and-publish.ts';
export type { TickContext, TickOutcome } from './tick.ts';
export { runTick } from './tick.ts';
export type { WeeklyOptions, WeeklyOutcome } from './weekly.ts';
export { latestSchedule, runWeeklySnapshot } from './weekly.ts';
