import { invalidInput } from './errors.ts';

/** A span of epoch milliseconds, `from` included and `to` excluded. */
export interface InstantRange {
  readonly from: number;
  readonly to: number;
}

/** The instants a logical clock may start at: a date outside them is a typo, and timers need sane numbers. */
const CLOCK_RANGE: InstantRange = { from: Date.UTC(2000, 0, 1), to: Date.UTC(2100, 0, 1) };

/** The forms exactInstant reads, as messages name them after the range. */
export const INSTANT_FORMS =
  'YYYY-MM-DD (UTC midnight) or YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or ±HH:MM (fraction: 1 to 9 digits)';

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2})))?$/;

/**
 * The epoch milliseconds of an exact ISO 8601 instant in one of INSTANT_FORMS, with every calendar
 * field checked (no February 30, no hour 24), within `range`; null for anything else. Date.parse
 * accepts `2026-11-16 junk` and rolls `2026-02-30` over to March, so no reader of instants uses it.
 */
export function exactInstant(text: string, range: InstantRange): number | null {
  const m = INSTANT.exec(text);
  // a time of day needs its zone: without one the instant would depend on the machine's time zone
  if (!m || (m[4] !== undefined && m[8] === undefined && m[9] === undefined)) return null;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 10, 11].map(
    (i) => Number(m[i] ?? 0),
  );
  // microseconds and nanoseconds (Python's isoformat, Java's Instant) are cut to milliseconds
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const fields = new Date(local);
  const calendar =
    fields.getUTCFullYear() === year &&
    fields.getUTCMonth() === month - 1 &&
    fields.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    offsetHours < 24 &&
    offsetMinutes < 60;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const instant = local - offset;
  return calendar && instant >= range.from && instant < range.to ? instant : null;
}

/** Parses the instant every `--now` and `--at` takes (exactInstant, from 2000 to 2099) into epoch milliseconds. */
export function parseInstant(text: string, what = '--now'): number {
  const instant = exactInstant(text, CLOCK_RANGE);
  if (instant === null)
    throw invalidInput(what, `an ISO 8601 instant from 2000 to 2099: ${INSTANT_FORMS}`, text);
  return instant;
}
