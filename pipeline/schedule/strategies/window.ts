import { adjustByRate, clampInterval } from './intervals.ts';
import type { DecisionInput, Strategy } from './types.ts';

/** The window rule over the last `size(n)` of n observations: r = changed share, then adjustByRate. */
function windowStrategy(name: string, summary: string, size: (n: number) => number): Strategy<null> {
  return Object.freeze({
    name,
    summary,
    oracle: false,
    init: () => null,
    next({ history, interval, bounds }: DecisionInput<null>) {
      const n = history.length;
      const w = Math.min(n, size(n));
      const r = history.changedCount(n - w, n) / w;
      return { interval: clampInterval(adjustByRate(interval, r), bounds), state: null };
    },
  });
}

export const windowTenStrategy = windowStrategy(
  'window',
  'share of changes r over the last 10 observations; r > 0.9/0.75/0.6 -> /3,/2,/1.5; r < 0.1/0.25/0.4 -> x3,x2,x1.5',
  () => 10,
);

export const windowHalfStrategy = windowStrategy(
  'window-half',
  'as window, over the last half of all observations (rounded up)',
  (n) => Math.ceil(n / 2),
);
