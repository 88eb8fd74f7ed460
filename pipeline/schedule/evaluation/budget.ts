import type { ChangeHistory } from '../histories/types.ts';
import { defaultStrategy, SCALED_FAMILIES } from '../strategies/registry.ts';
import type { Strategy } from '../strategies/types.ts';
import { evaluateStrategy, type StrategyResult } from './evaluate.ts';
import type { ReplaySettings } from './replay.ts';

/** A scaled strategy at one scale, and what it achieved. */
export interface BudgetPoint {
  readonly scale: number;
  readonly result: StrategyResult;
}

/**
 * A strategy family with one knob, `scale` (multiple of the estimated mean change interval between
 * visits): larger scales download less. The budget comparison sweeps and bisects it.
 */
export type ScaledFamily = (scale: number) => Strategy;

/** The default strategy's family (cho-irregular at a given scale). */
export const defaultFamily: ScaledFamily = SCALED_FAMILIES[defaultStrategy];

/**
 * Sweeps the scale (multiple of the estimated mean change interval between visits) over a log
 * grid: each point spends a different budget, so the points trace recall against downloads.
 */
export function sweepBudget(
  docs: readonly ChangeHistory[],
  settings: ReplaySettings,
  buckets: Uint8Array,
  scales: readonly number[],
  family: ScaledFamily = defaultFamily,
): BudgetPoint[] {
  return scales.map((scale) => ({
    scale,
    result: evaluateStrategy(docs, family(scale), settings, buckets, false),
  }));
}

/** Log-spaced scales from `from` to `to`, `n` of them. */
export function logGrid(from: number, to: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => from * (to / from) ** (i / (n - 1)));
}

/**
 * Finds the scale whose total downloads match `downloads` (within 0.5 %): downloads fall as the
 * scale grows, so bisection on log(scale) between `lo` and `hi` converges; returns the closest run.
 */
export function matchBudget(
  docs: readonly ChangeHistory[],
  settings: ReplaySettings,
  buckets: Uint8Array,
  downloads: number,
  family: ScaledFamily = defaultFamily,
  lo = 0.01,
  hi = 100,
): BudgetPoint {
  let best: BudgetPoint | undefined;
  for (let step = 0; step < 24; step++) {
    const scale = Math.sqrt(lo * hi);
    const result = evaluateStrategy(docs, family(scale), settings, buckets, false);
    const point = { scale, result };
    const gap = Math.abs(result.overall.downloads - downloads);
    if (!best || gap < Math.abs(best.result.overall.downloads - downloads)) best = point;
    if (gap <= 0.005 * downloads) break;
    if (result.overall.downloads > downloads) lo = scale;
    else hi = scale;
  }
  return best!;
}
