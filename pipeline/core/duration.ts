import { invalidInput } from './errors.ts';

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  mo: 30 * 86_400_000,
  y: 365 * 86_400_000,
};

/**
 * Parses a human duration (`500ms`, `2s`, `10.5h`, `7d`, `6mo`, `3y`; a bare number is in
 * `defaultUnit`) into milliseconds. Months are 30 days and years 365 days, as in the rescheduling paper.
 */
export function parseDuration(text: string, what = 'duration', defaultUnit = 's'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m?.[2] ? m[2].toLowerCase() : defaultUnit;
  if (!m || !(unit in UNITS)) {
    throw invalidInput(what, 'a duration such as 2s, 10.5h, 7d, 6mo or 3y', text);
  }
  return Number(m[1]) * UNITS[unit];
}

/** The instants a logical clock may start at: a date outside them is a typo, and timers need sane numbers. */
const INSTANT_RANGE = { from: Date.UTC(2000, 0, 1), to: Date.UTC(2100, 0, 1) } as const;

const INSTANT_FORMS =
  'an ISO 8601 instant from 2000 to 2099: YYYY-MM-DD (UTC midnight) or YYYY-MM-DDTHH:MM[:SS[.sss]] with Z or ±HH:MM';

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:(Z)|([+-])(\d{2}):(\d{2})))?$/;

/**
 * Parses an exact ISO 8601 instant (what every `--now` and `--at` takes) into epoch milliseconds.
 * Only the forms in INSTANT_FORMS, with every calendar field checked (no February 30, no hour 24),
 * within INSTANT_RANGE: Date.parse accepts `2026-11-16 junk` and rolls `2026-02-30` over to March.
 */
export function parseInstant(text: string, what = '--now'): number {
  const m = INSTANT.exec(text);
  const fail = () => invalidInput(what, INSTANT_FORMS, text);
  // a time of day needs its zone: without one the instant would depend on the machine's time zone
  if (!m || (m[4] !== undefined && m[8] === undefined && m[9] === undefined)) throw fail();
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 10, 11].map(
    (i) => Number(m[i] ?? 0),
  );
  const ms = Number((m[7] ?? '').padEnd(3, '0'));
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
  if (!calendar || instant < INSTANT_RANGE.from || instant >= INSTANT_RANGE.to) throw fail();
  return instant;
}
