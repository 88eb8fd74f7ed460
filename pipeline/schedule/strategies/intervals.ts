import type { Bounds } from './types.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
/** A month is 30 days and a year 365, as in the rescheduling paper (and core parseDuration). */
export const MONTH = 30 * DAY;
export const YEAR = 365 * DAY;

/** The rescheduling paper's bounds: at least daily, at least every six months; start weekly. */
export const PAPER_BOUNDS: Bounds = Object.freeze({ min: DAY, max: 6 * MONTH });
export const PAPER_INITIAL_INTERVAL = WEEK;

/** Keeps an interval within the bounds. */
export function clampInterval(interval: number, bounds: Bounds): number {
  return Math.min(bounds.max, Math.max(bounds.min, interval));
}

/**
 * The paper's adjustment by a rate r (share of changed observations, or a Markov chain's
 * probability of a change): shorter intervals for high r, longer for low r, in three steps each.
 */
export function adjustByRate(interval: number, r: number): number {
  if (r > 0.9) return interval / 3;
  if (r > 0.75) return interval / 2;
  if (r > 0.6) return interval / 1.5;
  if (r < 0.1) return interval * 3;
  if (r < 0.25) return interval * 2;
  if (r < 0.4) return interval * 1.5;
  return interval;
}
