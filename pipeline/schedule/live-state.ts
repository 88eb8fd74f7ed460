import type { ScheduleEntry } from '../core/index.ts';
import type { ObservationLog } from './strategies/observation-log.ts';
import { RATE_DEFAULTS } from './strategies/rate-allocation.ts';

/**
 * Observations kept per document: the longest look-back of any live strategy (the rate
 * strategies' `maxLookBack`), so that every strategy decides on exactly what it would see in an
 * unbounded history except `window-half`, whose half of all observations becomes at most half of
 * these. At 16 visits a week that is 16 weeks; at one a week, about five years.
 */
export const HISTORY_LIMIT = RATE_DEFAULTS.maxLookBack;

const MINUTE = 60_000;

/**
 * A document's observation history as schedule.parquet's `state` keeps it: `start` is the baseline
 * download (ms since the epoch), `minutes[i]` the gap from the observation before to observation
 * i, `changed[i]` '1' when it found a change. Observation times are slot starts (whole minutes),
 * so minutes lose nothing and keep a 256-observation history near 1.4 kB of JSON.
 */
export interface StoredHistory {
  readonly start: number;
  readonly minutes: readonly number[];
  readonly changed: string;
}

/** The `state` column of a live schedule entry: the strategy's own state and the history. */
export interface LiveState {
  readonly state: unknown;
  readonly history: StoredHistory;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function isStoredHistory(v: unknown): v is StoredHistory {
  return (
    isObject(v) &&
    typeof v.start === 'number' &&
    Array.isArray(v.minutes) &&
    typeof v.changed === 'string' &&
    v.changed.length === v.minutes.length
  );
}

/**
 * What an entry's `state` holds: the strategy state and history of a live entry, or (entries
 * published before the history was kept, DyLDO's bare level state) that state with no history.
 */
export function readLiveState(entry: ScheduleEntry): { state: unknown; history: StoredHistory | null } {
  const value: unknown = JSON.parse(entry.state);
  if (isObject(value) && isStoredHistory(value.history))
    return { state: value.state, history: value.history };
  return { state: value, history: null };
}

/** The history's observation times and verdicts into `log` (reset first). */
export function loadHistory(history: StoredHistory, log: ObservationLog): void {
  log.reset(history.start);
  let at = history.start;
  history.minutes.forEach((gap, i) => {
    at += gap * MINUTE;
    log.push(at, history.changed[i] === '1');
  });
}

/** The newest HISTORY_LIMIT observations of `log` for storage; the one before them becomes the start. */
export function storeHistory(log: ObservationLog): StoredHistory {
  const from = Math.max(0, log.length - HISTORY_LIMIT);
  const minutes: number[] = [];
  let changed = '';
  let previous = from === 0 ? log.start : log.at(from - 1);
  for (let i = from; i < log.length; i++) {
    minutes.push(Math.round((log.at(i) - previous) / MINUTE));
    changed += log.changed(i) ? '1' : '0';
    previous = log.at(i);
  }
  return { start: from === 0 ? log.start : log.at(from - 1), minutes, changed };
}

/** An empty history whose baseline download was at `start`. */
export function baselineOnly(start: number): StoredHistory {
  return { start, minutes: [], changed: '' };
}
