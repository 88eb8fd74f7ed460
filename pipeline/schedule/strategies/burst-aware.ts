import { irregularRate } from './change-rate.ts';
import { clampInterval, DAY, MONTH } from './intervals.ts';
import { lookBackStart, RATE_DEFAULTS } from './rate-allocation.ts';
import type { DecisionInput, Strategy } from './types.ts';

/**
 * Rate allocation (visit every scale / λ, see rate-allocation.ts) with two rates per document
 * instead of one, because real changes cluster: a change makes another one soon more likely.
 *
 * - cold λ: estimated from the observations that followed an unchanged one; shrunk toward a
 *   population rate 1 / `priorInterval` by `priorWeight` pseudo-observations (empirical Bayes: a
 *   document with few changes borrows strength from the population instead of trusting two
 *   events, which makes the slow documents' intervals far less noisy).
 * - hot λ: estimated from the observations that followed a changed one (how likely a change is
 *   right after a change), shrunk toward the cold λ by `hotWeight` pseudo-observations, so that a
 *   Poisson document, for which both are the same, is not misled by a few coincidences.
 *
 * The newest observation picks the rate: after a detected change the hot one, else the cold one.
 * Both are Cho and Garcia-Molina's irregular-gap maximum-likelihood estimate with the
 * pseudo-observations added to the likelihood.
 */
export interface BurstOptions {
  readonly scale: number;
  readonly window: number;
  readonly minChanges: number;
  readonly maxLookBack: number;
  /** The population's mean change interval the cold rate is shrunk toward (ms). */
  readonly priorInterval: number;
  /** Strength of that prior, in observations. */
  readonly priorWeight: number;
  /** Strength of the cold rate as the hot rate's prior, in observations. */
  readonly hotWeight: number;
  /** How long after a detected change a document stays hot (ms; 0: only the next visit). */
  readonly hotHorizon: number;
}

/** Tuned on the tuning set (synthetic, seed 1): see docs/strategies.md. */
export const BURST_DEFAULTS: BurstOptions = Object.freeze({
  ...RATE_DEFAULTS,
  priorInterval: 2 * MONTH,
  priorWeight: 2,
  hotWeight: 2,
  hotHorizon: 3 * DAY,
});

/** The last two estimates, reused as Newton guesses. */
export interface BurstState {
  readonly cold: number;
  readonly hot: number;
}

/** Gaps and unchanged time of one kind of observation (after a change, or not). */
class GapSet {
  readonly changed: Float64Array;
  count = 0;
  unchanged = 0;
  total = 0;
  observations = 0;
  constructor(capacity: number) {
    this.changed = new Float64Array(capacity);
  }
  reset(): void {
    this.count = 0;
    this.unchanged = 0;
    this.total = 0;
    this.observations = 0;
  }
  add(gap: number, changed: boolean): void {
    if (changed) this.changed[this.count++] = gap;
    else this.unchanged += gap;
    this.total += gap;
    this.observations++;
  }
  /**
   * The MLE with `weight` pseudo-observations of the mean gap `gap` drawn at `rate`: a share
   * 1 - e^(-rate·gap) of them changed, the rest add unchanged time. Alone they estimate `rate`.
   */
  rate(guess: number, weight: number, rate: number, gap: number): number {
    const p = 1 - Math.exp(-rate * gap);
    return irregularRate(
      this.changed.subarray(0, this.count),
      this.unchanged + weight * (1 - p) * gap,
      guess,
      {
        weight: weight * p,
        gap,
      },
    );
  }
}

/** The burst-aware, empirically shrunk rate strategy (`name` defaults to `burst`). */
export function burstStrategy(options: Partial<BurstOptions> & { name?: string } = {}): Strategy<BurstState> {
  const o = { ...BURST_DEFAULTS, ...options };
  const all = new GapSet(o.maxLookBack);
  const hot = new GapSet(o.maxLookBack);
  return Object.freeze({
    name: options.name ?? 'burst',
    summary: `two-rate (after a change / otherwise) irregular-gap estimate, shrunk toward a population prior; visit every ${o.scale} / λ`,
    oracle: false,
    init: () => ({ cold: 0, hot: 0 }),
    next({ history, interval, state, bounds }: DecisionInput<BurstState>) {
      const n = history.length;
      const from = lookBackStart(history, o);
      all.reset();
      hot.reset();
      // the newest changed observation before `from` decides whether the first one was scheduled hot
      let lastChange = Number.NEGATIVE_INFINITY;
      for (let j = from - 1; j >= 0 && history.at(j) >= history.at(from - 1) - o.hotHorizon; j--) {
        if (history.changed(j)) {
          lastChange = history.at(j);
          break;
        }
      }
      let previous = from === 0 ? history.start : history.at(from - 1);
      for (let i = from; i < n; i++) {
        const at = history.at(i);
        const changed = history.changed(i);
        all.add(at - previous, changed);
        if (previous - lastChange <= o.hotHorizon) hot.add(at - previous, changed);
        if (changed) lastChange = at;
        previous = at;
      }
      const coldRate = all.rate(state.cold, o.priorWeight, 1 / o.priorInterval, all.total / all.observations);
      const hotGap = hot.observations > 0 ? hot.total / hot.observations : interval;
      const hotRate = hot.rate(state.hot, o.hotWeight, coldRate, hotGap);
      const rate = previous - lastChange <= o.hotHorizon ? hotRate : coldRate;
      const next = rate > 0 ? o.scale / rate : bounds.max;
      return {
        interval: clampInterval(Number.isFinite(next) ? next : interval, bounds),
        state: { cold: coldRate, hot: hotRate },
      };
    },
  });
}
