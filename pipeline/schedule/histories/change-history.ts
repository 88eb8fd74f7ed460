import { exactInstant, INSTANT_FORMS, type InstantRange } from '../../core/index.ts';
import type { ChangeHistory } from './types.ts';

/**
 * The instants a change history may hold: from 1990, when the Web began (no Web document changed
 * before it; MediaWiki's histories start in 2001, and archives such as the Wayback Machine's in
 * 1996), to the end of 2099 as for the clock. A year outside is a typo, and one such typo would
 * stretch its history over centuries of simulated re-visits.
 */
const HISTORY_RANGE: InstantRange = { from: Date.UTC(1990, 0, 1), to: Date.UTC(2100, 0, 1) };

/** What a history timestamp must be, as error messages say it. */
export const HISTORY_INSTANT = `an ISO 8601 timestamp from 1990 to 2099 (${INSTANT_FORMS})`;

/** A history timestamp in epoch ms (an exact instant within HISTORY_RANGE), or null when it is not one. */
export function historyInstant(value: unknown): number | null {
  return typeof value === 'string' ? exactInstant(value, HISTORY_RANGE) : null;
}

/** Builds a ChangeHistory: sorts the changes and keeps those within (start, end]. */
export function changeHistory(
  id: string,
  start: number,
  end: number,
  changes: Iterable<number>,
): ChangeHistory {
  const sorted = Float64Array.from(changes).sort();
  let from = 0;
  while (from < sorted.length && sorted[from] <= start) from++;
  let to = sorted.length;
  while (to > from && sorted[to - 1] > end) to--;
  return Object.freeze({ id, start, end, changes: sorted.slice(from, to) });
}
