import type { ChangeHistory } from './types.ts';

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
