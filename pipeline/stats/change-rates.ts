import { irregularRate } from '../schedule/index.ts';

const WEEK_SECONDS = 7 * 86_400;
/** Two-sided 95% normal quantile. */
const Z95 = 1.959964;

/** Changed comparisons of one document whose gaps fell into one bucket: how many, and their summed gaps. */
export interface ChangedGaps {
  readonly changes: number;
  readonly seconds: number;
}

/** A document's estimated change rate in changes per week, with a 95% interval, and the time observed. */
export interface ChangeRateEstimate {
  readonly perWeek: number;
  readonly low: number;
  readonly high: number;
  /** The summed gaps of its compared observations, in days. */
  readonly observedDays: number;
}

/**
 * The change rate of a document observed at irregular gaps (weekly crawls and re-visits between
 * them), per unit of time: Cho and Garcia-Molina's maximum-likelihood estimator for irregular
 * accesses (a Poisson process of changes, of which a comparison only sees whether at least one
 * happened in its gap). Half an unchanged comparison of the mean gap is added so that a document
 * that changed at every comparison still gets a finite rate: our analogue, for irregular gaps, of
 * the 0.5 their estimator for regular accesses adds (regularRate). Changed gaps come per bucket,
 * each as its mean gap.
 *
 * The interval: for a document with changes, the Wald interval on the log scale from the observed
 * Fisher information, I(λ) = Σ t² e^{λt} / (e^{λt} - 1)² over its changed gaps; with no change
 * seen, [0, -ln(0.05) / T], the rates under which seeing no change in the observed time T still has
 * a chance of at least 5%.
 */
export function estimateChangeRate(
  comparisons: number,
  changed: readonly ChangedGaps[],
  unchangedSeconds: number,
): ChangeRateEstimate {
  const changes = changed.reduce((n, g) => n + g.changes, 0);
  const changedSeconds = changed.reduce((n, g) => n + g.seconds, 0);
  const observed = unchangedSeconds + changedSeconds;
  const observedDays = observed / 86_400;
  if (changes === 0)
    return {
      perWeek: 0,
      low: 0,
      high: observed > 0 ? (-Math.log(0.05) / observed) * WEEK_SECONDS : Number.POSITIVE_INFINITY,
      observedDays,
    };
  const gaps = new Float64Array(changes);
  let filled = 0;
  for (const g of changed) {
    gaps.fill(g.seconds / g.changes, filled, filled + g.changes);
    filled += g.changes;
  }
  const lambda = irregularRate(gaps, unchangedSeconds + 0.5 * (observed / comparisons), 0);
  let information = 0;
  for (const t of gaps) {
    // e^{λt} / (e^{λt} - 1)² written with e^{-λt}, which does not overflow on long gaps
    const e = Math.exp(-lambda * t);
    information += (t * t * e) / ((1 - e) * (1 - e));
  }
  const spread = Math.exp((Z95 * (1 / Math.sqrt(information))) / lambda);
  return {
    perWeek: lambda * WEEK_SECONDS,
    low: (lambda / spread) * WEEK_SECONDS,
    high: lambda * spread * WEEK_SECONDS,
    observedDays,
  };
}
