import type { Progress } from '../../core/index.ts';
import type { ChangeHistory } from '../histories/types.ts';
import { MONTH } from '../strategies/intervals.ts';
import { ObservationLog } from '../strategies/observation-log.ts';
import type { Strategy } from '../strategies/types.ts';
import { BUCKETS, bucketOf } from './buckets.ts';
import { evaluatedEnd, type MonthlyCounts, type ReplaySettings, realChanges, replay } from './replay.ts';
import { addTally, emptyTally, type Tally } from './tally.ts';

/** One strategy's results: overall, per dynamicity bucket (BUCKETS order) and per month. */
export interface StrategyResult {
  readonly name: string;
  readonly overall: Tally;
  readonly buckets: readonly Tally[];
  readonly monthly: MonthlyCounts;
}

/** Results of an evaluation, with the real changes per month that monthly recall divides by. */
export interface Evaluation {
  readonly settings: ReplaySettings;
  readonly documents: number;
  readonly results: readonly StrategyResult[];
  readonly monthlyChanges: Float64Array;
}

/** Each document's dynamicity bucket (by its true mean change interval over the span). */
export function documentBuckets(docs: readonly ChangeHistory[], span: number): Uint8Array {
  const out = new Uint8Array(docs.length);
  docs.forEach((doc, i) => {
    const end = evaluatedEnd(doc, span);
    const real = realChanges(doc, end);
    out[i] = bucketOf(real === 0 ? Number.POSITIVE_INFINITY : (end - doc.start) / real);
  });
  return out;
}

/** Runs one strategy over every document; `monthly` only when per-month figures are wanted. */
export function evaluateStrategy(
  docs: readonly ChangeHistory[],
  strategy: Strategy,
  settings: ReplaySettings,
  buckets: Uint8Array,
  withMonths = true,
): StrategyResult {
  const months = Math.ceil(settings.span / MONTH);
  const monthly = { captured: new Float64Array(months), downloads: new Float64Array(months) };
  const perBucket = BUCKETS.map(() => emptyTally());
  const log = new ObservationLog(Math.ceil(settings.span / settings.bounds.min) + 1);
  for (let i = 0; i < docs.length; i++) {
    replay(docs[i], strategy, settings, perBucket[buckets[i]], log, withMonths ? monthly : undefined);
  }
  const overall = emptyTally();
  for (const t of perBucket) addTally(overall, t);
  return { name: strategy.name, overall, buckets: perBucket, monthly };
}

/** Replays every strategy on every document; reports progress per strategy. */
export function evaluate(
  docs: readonly ChangeHistory[],
  strategies: readonly Strategy[],
  settings: ReplaySettings,
  progress?: Progress,
): Evaluation {
  const buckets = documentBuckets(docs, settings.span);
  const monthlyChanges = new Float64Array(Math.ceil(settings.span / MONTH));
  for (const doc of docs) {
    const end = evaluatedEnd(doc, settings.span);
    for (const at of doc.changes) {
      if (at > end) break;
      monthlyChanges[Math.min(monthlyChanges.length - 1, Math.floor((at - doc.start) / MONTH))]++;
    }
  }
  const results: StrategyResult[] = [];
  for (const strategy of strategies) {
    results.push(evaluateStrategy(docs, strategy, settings, buckets));
    progress?.update({ done: results.length, total: strategies.length, extra: { strategy: strategy.name } });
  }
  progress?.finish({ done: results.length, total: strategies.length });
  return { settings, documents: docs.length, results, monthlyChanges };
}
