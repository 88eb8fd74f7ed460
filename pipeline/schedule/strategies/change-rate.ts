/**
 * Poisson change-rate estimators for incomplete histories (Cho and Garcia-Molina, "Estimating
 * frequency of change", ACM TOIT 2003). An observation only tells whether at least one change
 * happened since the one before, so counting detected changes underestimates the rate.
 */

/**
 * Regular accesses: n observations at interval I, X of them saw a change. Cho's bias-reduced
 * estimator r = -ln((n - X + 0.5) / (n + 0.5)) of λ·I (finite even when every access saw a change).
 */
export function regularRate(n: number, changed: number, interval: number): number {
  if (n === 0) return 0;
  return Math.log((n + 0.5) / (n - changed + 0.5)) / interval;
}

/**
 * Irregular accesses: the maximum-likelihood λ solves Σ_changed t/(e^(λt) - 1) = Σ_unchanged t,
 * where t is each observation's gap since the one before. The left side falls from +∞ to 0 as λ
 * grows, so Newton steps from a guess, kept inside a shrinking bracket, converge in a few steps.
 * `unchangedTime` should include Cho's half pseudo-observation so that an all-changed history has
 * a finite answer; `prior` adds a fractional changed observation over a long gap so that a history
 * without any change still gets a small positive rate (without it the answer is 0).
 */
export function irregularRate(
  changedGaps: ArrayLike<number>,
  unchangedTime: number,
  guess: number,
  prior: { readonly weight: number; readonly gap: number } = { weight: 0, gap: 0 },
): number {
  const k = changedGaps.length;
  if (k === 0 && prior.weight === 0) return 0;
  if (unchangedTime <= 0) return Number.POSITIVE_INFINITY;
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  let lambda = guess > 0 && Number.isFinite(guess) ? guess : (k + prior.weight) / unchangedTime;
  for (let step = 0; step < 60; step++) {
    let g = -unchangedTime;
    let slope = 0;
    for (let i = 0; i < k; i++) {
      const t = changedGaps[i];
      const e = Math.exp(lambda * t);
      const d = e - 1;
      g += t / d;
      slope -= (t * t * e) / (d * d);
    }
    if (prior.weight > 0) {
      const t = prior.gap;
      const e = Math.exp(lambda * t);
      const d = e - 1;
      g += (prior.weight * t) / d;
      slope -= (prior.weight * t * t * e) / (d * d);
    }
    if (g > 0) lo = lambda;
    else hi = lambda;
    let next = lambda - g / slope;
    if (!(next > lo && next < hi)) next = Number.isFinite(hi) ? (lo + hi) / 2 : lambda * 2;
    if (Math.abs(next - lambda) <= 1e-6 * lambda) return next;
    lambda = next;
  }
  return lambda;
}
