import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CrawlConfig,
  crawlConfig,
  type DocumentRecord,
  parseResolveRule,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import {
  type CrawlPlan,
  type CrawlResult,
  createCrawlTools,
  readJournalDocuments,
  runCrawl,
} from '../../pipeline/crawl/index.ts';
import type { RequestLogEntry, SimWeb } from '../../pipeline/simweb/index.ts';

/** A crawl config routed to the simulated Web (guard lifted unless `allowPrivate: false` is given). */
export function simConfig(sim: SimWeb, over: Partial<CrawlConfig> = {}): CrawlConfig {
  return crawlConfig({ resolve: [parseResolveRule(sim.resolveRule)], allowPrivate: true, ...over });
}

/** A crawl of `seeds` up to `maxDepth` hops, every round it needs. */
export function planFor(seeds: readonly string[], maxDepth: number): CrawlPlan {
  return {
    seeds,
    maxDepth,
    maxRounds: maxDepth + 1,
    maxDocuments: Number.POSITIVE_INFINITY,
    segmentFor: () => 'expand',
  };
}

/** The outcome of one crawl: its result and every journaled record by the URL asked for. */
export interface SimCrawl {
  readonly result: CrawlResult;
  readonly records: Map<string, DocumentRecord>;
  readonly dir: string;
}

/** Runs one crawl over real HTTP with a fresh fetcher, journaling into `dir` (resuming what it holds). */
export async function crawlInto(
  dir: string,
  config: CrawlConfig,
  plan: CrawlPlan,
  { signal }: { signal?: AbortSignal } = {},
): Promise<CrawlResult> {
  const tools = createCrawlTools(config, systemClock);
  try {
    return await runCrawl({
      plan,
      config,
      fetcher: tools.fetcher,
      loadContext: tools.loadContext,
      dir,
      clock: systemClock,
      logger: silentLogger,
      signal,
    });
  } finally {
    await tools.close();
  }
}

/** Every record journaled in `dir`, by the URL asked for. */
export async function journalRecords(dir: string): Promise<Map<string, DocumentRecord>> {
  const records = new Map<string, DocumentRecord>();
  for await (const { record } of readJournalDocuments(dir)) records.set(record.url, record);
  return records;
}

/** Runs one crawl over real HTTP with a fresh fetcher and a fresh journal folder. */
export async function crawlSim(config: CrawlConfig, plan: CrawlPlan): Promise<SimCrawl> {
  const dir = mkdtempSync(join(tmpdir(), 'crawl-sim-'));
  const result = await crawlInto(dir, config, plan);
  return { result, records: await journalRecords(dir), dir };
}

/** Request starts per PLD as the server saw them, in arrival order. */
export function startsByPld(log: readonly RequestLogEntry[]): Map<string, RequestLogEntry[]> {
  const byPld = new Map<string, RequestLogEntry[]>();
  for (const entry of log) {
    const list = byPld.get(entry.pld) ?? [];
    list.push(entry);
    byPld.set(entry.pld, list);
  }
  for (const list of byPld.values()) list.sort((a, b) => a.startedAt - b.startedAt);
  return byPld;
}

/** Consecutive request starts of one PLD closer than `minGapMs`, as readable lines (none: polite). */
export function politenessViolations(log: readonly RequestLogEntry[], minGapMs: number): string[] {
  const found: string[] = [];
  for (const [pld, list] of startsByPld(log)) {
    for (let i = 1; i < list.length; i++) {
      const gap = list[i].startedAt - list[i - 1].startedAt;
      if (gap < minGapMs) {
        found.push(
          `${pld}: ${list[i - 1].host}${list[i - 1].path} then ${list[i].host}${list[i].path} ${gap.toFixed(2)} ms apart`,
        );
      }
    }
  }
  return found;
}
