/**
 * Re-visit levels as the server saw them: a kernel document's level after a crawl is the slot
 * frequency of its re-visit interval (docs/data-dictionary.md: level = round(log2(16 / slots))), and
 * the interval shows in the request log as the slots until the document is next requested. After a
 * weekly snapshot (slot 0) that is exact: a document requested again in slot k of the week has an
 * interval of k slots, one not requested before the next weekly snapshot an interval of 16 (level
 * 0). After a tick in slot s, a next request past the week says only that the interval is at least
 * 16 - s slots: a range of levels.
 */
import { SLOTS_PER_WEEK } from '../../pipeline/schedule/index.ts';
import type { AuditCrawl } from './audit-series.ts';
import type { IndependentAccount } from './observations.ts';

/** The levels a document may have after a crawl: lowest and highest (equal when the log decides it). */
export interface LevelRange {
  readonly low: number;
  readonly high: number;
}

const levelOf = (slots: number) => Math.round(Math.log2(SLOTS_PER_WEEK / slots));

/** Per crawl (by name), per kernel document: its level range after the crawl. */
export function revisitLevels(
  account: IndependentAccount,
  kernel: readonly string[],
): Map<string, Map<string, LevelRange>> {
  const crawls = account.crawls.map((c) => c.crawl);
  /** url -> indexes of the crawls it has a row in, in order. */
  const visits = new Map<string, number[]>();
  account.crawls.forEach(({ rows }, i) => {
    for (const r of rows) visits.set(r.url, [...(visits.get(r.url) ?? []), i]);
  });
  const after = (c: AuditCrawl, next: AuditCrawl | undefined): LevelRange => {
    if (next && next.week === c.week) {
      const level = levelOf(next.slot - c.slot);
      return { low: level, high: level };
    }
    // not requested again this week: an interval of at least what is left of the week (at most 16)
    return { low: 0, high: levelOf(SLOTS_PER_WEEK - c.slot) };
  };
  const result = new Map<string, Map<string, LevelRange>>();
  const current = new Map<string, LevelRange>();
  crawls.forEach((c, i) => {
    for (const url of kernel) {
      const seen = visits.get(url) ?? [];
      if (!seen.includes(i)) continue;
      const next = seen.find((j) => j > i);
      current.set(url, after(c, next === undefined ? undefined : crawls[next]));
    }
    result.set(c.name, new Map(current));
  });
  return result;
}

/**
 * Kernel documents per level, when the ranges decide it; else the bounds each level's count must
 * lie within (the documents certainly at it, and those possibly at it).
 */
export function levelCounts(ranges: ReadonlyMap<string, LevelRange>): {
  readonly exact: boolean;
  readonly documents: number;
  readonly low: Record<string, number>;
  readonly high: Record<string, number>;
} {
  const low: Record<string, number> = {};
  const high: Record<string, number> = {};
  let exact = true;
  for (const r of ranges.values()) {
    if (r.low === r.high) low[r.low] = (low[r.low] ?? 0) + 1;
    else exact = false;
    for (let l = r.low; l <= r.high; l++) high[l] = (high[l] ?? 0) + 1;
  }
  return { exact, documents: ranges.size, low, high };
}
