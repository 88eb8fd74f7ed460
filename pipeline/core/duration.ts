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
