import type { Progress } from '../../core/index.ts';
import type { ChangeHistory } from '../histories/types.ts';
import { BUCKETS } from './buckets.ts';
import {
  type BudgetPoint,
  defaultFamily,
  logGrid,
  matchBudget,
  type ScaledFamily,
  sweepBudget,
} from './budget.ts';
import { documentBuckets, type Evaluation, type StrategyResult } from './evaluate.ts';
import { recall, type Tally } from './tally.ts';

/** One bucket of one published strategy against the challenger's curve at the same downloads. */
export interface BucketVerdict {
  readonly bucket: string;
  readonly downloads: number;
  readonly recall: number;
  /** The challenger's recall at the same downloads in this bucket; null when outside its curve. */
  readonly challengerRecall: number | null;
}

/** A published strategy against the challenger given the same total budget. */
export interface ComparisonRow {
  readonly published: StrategyResult;
  /** The challenger run whose total downloads match the published strategy's. */
  readonly matched: BudgetPoint;
  readonly buckets: readonly BucketVerdict[];
}

export interface Comparison {
  readonly rows: readonly ComparisonRow[];
  /** The challenger's recall-vs-downloads curve (one point per scale). */
  readonly sweep: readonly BudgetPoint[];
}

/** Scales swept for the curve: from 50 visits per mean change interval to one visit per 20. */
export const SWEEP_SCALES = logGrid(0.02, 20, 16);

/**
 * Recall of a curve at `downloads`, interpolated linearly in log(downloads) between the two sweep
 * points around it; null outside the curve (no extrapolation).
 */
export function recallAt(points: readonly Tally[], downloads: number): number | null {
  const sorted = points.filter((t) => t.downloads > 0).sort((a, b) => a.downloads - b.downloads);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (downloads >= a.downloads && downloads <= b.downloads) {
      const f =
        b.downloads === a.downloads
          ? 0
          : Math.log(downloads / a.downloads) / Math.log(b.downloads / a.downloads);
      return recall(a) + f * (recall(b) - recall(a));
    }
  }
  return null;
}

/**
 * Compares every published strategy of `evaluation` with the challenger (a scaled family, by
 * default cho-irregular), fairly: overall at the same total downloads (the scale is searched until the
 * budgets match), and per dynamicity bucket on the challenger's recall-vs-downloads curve at the
 * published strategy's downloads in that bucket.
 */
export function compareAtEqualDownloads(
  docs: readonly ChangeHistory[],
  evaluation: Evaluation,
  published: readonly string[],
  family: ScaledFamily = defaultFamily,
  progress?: Progress,
): Comparison {
  const { settings } = evaluation;
  const buckets = documentBuckets(docs, settings.span);
  const sweep = sweepBudget(docs, settings, buckets, SWEEP_SCALES, family);
  const targets = evaluation.results.filter((r) => published.includes(r.name));
  const rows = targets.map((result, i) => {
    const target = result.overall.downloads;
    // bracket the scale with the sweep (downloads fall as the scale grows), then bisect inside
    const above = sweep.filter((p) => p.result.overall.downloads >= target).at(-1);
    const below = sweep.find((p) => p.result.overall.downloads <= target);
    const matched = matchBudget(
      docs,
      settings,
      buckets,
      target,
      family,
      above?.scale ?? 1e-3,
      below?.scale ?? 1e3,
    );
    progress?.update({ done: i + 1, total: targets.length, extra: { strategy: result.name } });
    return {
      published: result,
      matched,
      buckets: BUCKETS.map((bucket, b) => ({
        bucket: bucket.name,
        downloads: result.buckets[b].downloads,
        recall: recall(result.buckets[b]),
        challengerRecall:
          result.buckets[b].documents === 0
            ? null
            : recallAt(
                sweep.map((p) => p.result.buckets[b]),
                result.buckets[b].downloads,
              ),
      })),
    };
  });
  progress?.finish({ done: rows.length, total: targets.length });
  return { rows, sweep };
}
