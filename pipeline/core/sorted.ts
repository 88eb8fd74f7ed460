/**
 * How many of the first `length` values, sorted ascending and read by `valueAt`, are at most `t`:
 * the index of the first one greater than `t` (binary search).
 */
export function countAtMost(length: number, valueAt: (i: number) => number, t: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (valueAt(mid) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
