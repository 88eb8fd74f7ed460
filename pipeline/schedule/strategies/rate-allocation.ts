import { irregularRate, regularRate } from './change-rate.ts';
import { clampInterval } from './intervals.ts';
import type { DecisionInput, History, Strategy } from './types.ts';

/**
 * Why interval = scale / λ: a document visited with frequency f captures changes at rate
 * f·(1 - e^(-λ/f)). Maximising the sum over documents for a fixed total of downloads Σ f (the
 * budget) with a Lagrange multiplier gives 1 - e^(-x)(1 + x) = μ with x = λ/f, the same x for every
 * document: the optimal allocation visits each document at the same multiple of its mean change
 * interval. `scale` is that multiple; the budget decides it (evaluation/budget.ts finds the scale
 * that spends a given number of downloads).
 */
export interface RateOptions {
  readonly estimator: 'regular' | 'irregular';
  /** Multiple of the estimated mean change interval between visits. */
  readonly scale: number;
  /** Observations the estimate looks at (the newest ones): long enough to be stable, short enough to follow drift. */
  readonly window: number;
  /** The look-back extends past `window` until it holds this many changed observations (or `maxLookBack`). */
  readonly minChanges: number;
  readonly maxLookBack: number;
  /** Name in the registry (defaults to cho-<estimator>). */
  readonly name?: string;
}

/** The last estimate, reused as the next Newton guess. */
export interface RateState {
  readonly rate: number;
}

export const RATE_DEFAULTS = Object.freeze({ scale: 1, window: 24, minChanges: 8, maxLookBack: 256 });

/**
 * The first observation a rate estimate looks at: the newest `window` ones, extended back until
 * they hold `minChanges` changed observations, at most `maxLookBack` observations.
 */
export function lookBackStart(
  history: History,
  { window, minChanges, maxLookBack }: Pick<RateOptions, 'window' | 'minChanges' | 'maxLookBack'>,
): number {
  const n = history.length;
  const from = Math.max(0, n - window);
  const floor = Math.max(0, n - maxLookBack);
  if (from <= floor || history.changedCount(from, n) >= minChanges) return from;
  // changedCount(i, n) grows as i moves back: binary search for the newest start with enough
  let lo = floor;
  let hi = from;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (history.changedCount(mid, n) >= minChanges) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A strategy that estimates λ from its newest observations and visits every scale/λ. */
export function rateStrategy(options: RateOptions): Strategy<RateState> {
  const { estimator, scale, window, maxLookBack } = options;
  const gaps = new Float64Array(maxLookBack);
  return Object.freeze({
    name: options.name ?? `cho-${estimator}`,
    summary:
      estimator === 'regular'
        ? `Cho's bias-reduced estimator (mean gap) over the last ${window}+ observations, visit every ${scale} / λ`
        : `Cho's maximum-likelihood estimator for irregular gaps over the last ${window}+ observations, visit every ${scale} / λ`,
    oracle: false,
    init: () => ({ rate: 0 }),
    next({ history, interval, state, bounds }: DecisionInput<RateState>) {
      const n = history.length;
      const from = lookBackStart(history, options);
      const span = history.at(n - 1) - (from === 0 ? history.start : history.at(from - 1));
      const changed = history.changedCount(from, n);
      let rate: number;
      if (estimator === 'regular') {
        rate = regularRate(n - from, Math.max(changed, 0.5), span / (n - from));
      } else {
        let k = 0;
        let unchanged = 0.5 * (span / (n - from));
        let previous = from === 0 ? history.start : history.at(from - 1);
        for (let i = from; i < n; i++) {
          const at = history.at(i);
          if (history.changed(i)) gaps[k++] = at - previous;
          else unchanged += at - previous;
          previous = at;
        }
        rate = irregularRate(gaps.subarray(0, k), unchanged, state.rate, { weight: 0.5, gap: span });
      }
      const next = rate > 0 ? scale / rate : bounds.max;
      return { interval: clampInterval(Number.isFinite(next) ? next : interval, bounds), state: { rate } };
    },
  });
}
