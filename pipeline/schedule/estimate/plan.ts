import type { CrawlConfig, ScheduleEntry } from '../../core/index.ts';
import { dueUrls } from '../tick-plan.ts';
import { type CrawlEstimate, estimateCrawl } from './estimate.ts';
import type { HistoryStats } from './profile.ts';

export interface SlotPlanOptions {
  /** The kernel's schedule (the latest snapshot's schedule.parquet). */
  readonly schedule: readonly ScheduleEntry[];
  /** Start of the slot: documents due by then are candidates. */
  readonly slotStart: number;
  /** Time the crawl may take (ms): a slot is 10.5 h, less when the tick starts late. */
  readonly budgetMs: number;
  readonly stats: HistoryStats;
  readonly config: Pick<CrawlConfig, 'concurrency' | 'delayMs' | 'crawlDelayCapMs' | 'timeoutMs' | 'policy'>;
}

/** Due documents at one re-visit level, and how many of them fit. */
export interface LevelFit {
  readonly level: number;
  readonly due: number;
  readonly fit: number;
}

export interface SlotPlan {
  /** Documents to crawl, most urgent first. */
  readonly fit: readonly ScheduleEntry[];
  /** Due documents left for the next slot, least urgent last. */
  readonly postponed: readonly ScheduleEntry[];
  readonly byLevel: readonly LevelFit[];
  /** The estimate of crawling `fit` (null when nothing is due). */
  readonly estimate: CrawlEstimate | null;
}

/** Monte-Carlo runs per trial while searching; the final estimate uses the estimator's default. */
const SEARCH_RUNS = 5;

/**
 * Most urgent first: higher re-visit levels first (a level-4 document postponed by a slot loses a
 * whole re-visit, a level-0 one a sixteenth of its week), then the longest overdue, then by URL.
 */
export function byUrgency(a: ScheduleEntry, b: ScheduleEntry): number {
  return b.level - a.level || a.nextDue - b.nextDue || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);
}

/**
 * Which of the documents due at `slotStart` a crawl can fetch within `budgetMs`: the longest
 * prefix, in urgency order, whose P90 predicted makespan fits (found by bisection); the rest are
 * postponed and stay due, so the next slot takes them first. At least one document is kept, so a
 * slot never goes by without progress.
 */
export function planSlot(o: SlotPlanOptions): SlotPlan {
  const due = new Set(dueUrls(o.schedule, o.slotStart));
  const ordered = o.schedule.filter((e) => due.has(e.url)).sort(byUrgency);
  if (ordered.length === 0) return { fit: [], postponed: [], byLevel: [], estimate: null };
  const estimateOf = (n: number, runs?: number) =>
    estimateCrawl({
      urls: ordered.slice(0, n).map((e) => e.url),
      stats: o.stats,
      config: o.config,
      runs,
    });
  let keep = ordered.length;
  if (estimateOf(keep, SEARCH_RUNS).p90Ms > o.budgetMs) {
    let lo = 1;
    let hi = ordered.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (estimateOf(mid, SEARCH_RUNS).p90Ms <= o.budgetMs) lo = mid;
      else hi = mid - 1;
    }
    keep = lo;
  }
  const fit = ordered.slice(0, keep);
  const levels = new Map<number, { due: number; fit: number }>();
  ordered.forEach((e, i) => {
    const l = levels.get(e.level) ?? { due: 0, fit: 0 };
    l.due++;
    if (i < keep) l.fit++;
    levels.set(e.level, l);
  });
  return {
    fit,
    postponed: ordered.slice(keep),
    byLevel: [...levels.entries()].sort(([a], [b]) => b - a).map(([level, l]) => ({ level, ...l })),
    estimate: estimateOf(keep),
  };
}
