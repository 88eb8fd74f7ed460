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
 * A document's observation history: `start` is the baseline download (ms since the epoch),
 * `minutes[i]` the gap from the observation before to observation i, `changed[i]` '1' when it
 * found a change. Observation times are slot starts (whole minutes), so minutes lose nothing.
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

/**
 * The gaps as schedule.parquet keeps them: runs of equal gaps as `gap*count`, comma-separated
 * (`10080*51,5040`). A kernel document's gaps are mostly one re-visit interval repeated, so a
 * full 256-observation history takes tens of characters instead of ~1.4 kB: a publish holds the
 * whole kernel's schedule (95,737 documents in the paper) twice, the previous one and the next.
 */
function encodeGaps(minutes: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < minutes.length; ) {
    let j = i + 1;
    while (j < minutes.length && minutes[j] === minutes[i]) j++;
    runs.push(j - i > 1 ? `${minutes[i]}*${j - i}` : String(minutes[i]));
    i = j;
  }
  return runs.join(',');
}

/** The gaps of `encodeGaps`, or null when `text` is not such a list. */
function decodeGaps(text: string): number[] | null {
  if (text === '') return [];
  const minutes: number[] = [];
  for (const run of text.split(',')) {
    const match = /^(\d+)(?:\*(\d+))?$/.exec(run);
    if (!match) return null;
    for (let n = Number(match[2] ?? 1); n > 0; n--) minutes.push(Number(match[1]));
  }
  return minutes;
}

/** The verdicts as schedule.parquet keeps them: four to a hexadecimal digit, the last padded with 0s. */
function encodeVerdicts(changed: string): string {
  let hex = '';
  for (let i = 0; i < changed.length; i += 4)
    hex += Number.parseInt(changed.slice(i, i + 4).padEnd(4, '0'), 2).toString(16);
  return hex;
}

/** The first `count` verdicts of `encodeVerdicts`, or null when `hex` does not hold them. */
function decodeVerdicts(hex: string, count: number): string | null {
  if (!/^[0-9a-f]*$/.test(hex) || hex.length !== Math.ceil(count / 4)) return null;
  let changed = '';
  for (const digit of hex) changed += Number.parseInt(digit, 16).toString(2).padStart(4, '0');
  return changed.slice(0, count);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The `state` column's text for a strategy state and a history. */
export function writeLiveState({ state, history }: LiveState): string {
  return JSON.stringify({
    state,
    history: {
      start: history.start,
      gaps: encodeGaps(history.minutes),
      changed: encodeVerdicts(history.changed),
    },
  });
}

/**
 * What an entry's `state` holds: the strategy state and history of a live entry, or (entries
 * published before the history was kept, DyLDO's bare level state) that state with no history.
 */
export function readLiveState(entry: ScheduleEntry): { state: unknown; history: StoredHistory | null } {
  const value: unknown = JSON.parse(entry.state);
  const stored = isObject(value) && isObject(value.history) ? value.history : null;
  if (
    stored &&
    typeof stored.start === 'number' &&
    typeof stored.gaps === 'string' &&
    typeof stored.changed === 'string'
  ) {
    const minutes = decodeGaps(stored.gaps);
    const changed = minutes && decodeVerdicts(stored.changed, minutes.length);
    if (minutes && changed !== null)
      return {
        state: (value as Record<string, unknown>).state,
        history: { start: stored.start, minutes, changed },
      };
  }
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
