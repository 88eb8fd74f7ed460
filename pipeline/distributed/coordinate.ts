import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { type DocumentRecord, ObservatoryError } from '../core/index.ts';
import {
  type CrawlOptions,
  type CrawlResult,
  CrawlStats,
  JOURNAL_FILE,
  openJournal,
  seedUrls,
  UrlClaims,
} from '../crawl/index.ts';
import { openPool } from './pool.ts';
import {
  advanceRound,
  crawlStatus,
  createCrawl,
  finishCrawl,
  readResults,
  roundMembers,
  type StoredPlan,
  type StoredResult,
} from './store.ts';

/** How often the coordinator looks at the crawl (progress, round end). */
const POLL_MS = 250;
/** Depths whose segment the plan is asked for: beyond, a document has the last one. */
const MAX_SEGMENT_DEPTH = 16;

/**
 * The crawl of a run through the coordinator: creates it in PostgreSQL (or finds it again when the
 * snapshot was resumed), lets workers crawl it, starts each round once the previous one is done
 * (breadth-first rounds with the one-process frontier's order and budget), and finally writes every
 * result into the run's crawl journal, so that the snapshot stage publishes it as usual.
 *
 * Rounds here always run out: the one-process round-end rule ends a round early only in crawls
 * without a budget (a budgeted crawl runs each round out so that what joins a round does not depend
 * on timing), and the weekly snapshot is budgeted.
 */
export function coordinatedCrawl(url: string): (options: CrawlOptions, name: string) => Promise<CrawlResult> {
  return async (options, name) => {
    const pool = await openPool(url, options.logger);
    try {
      return await coordinate(pool, options, name);
    } finally {
      await pool.end();
    }
  };
}

function storedPlan({ plan }: CrawlOptions): StoredPlan {
  const deepest = Math.min(plan.maxDepth, MAX_SEGMENT_DEPTH);
  return {
    maxDepth: plan.maxDepth,
    maxDocuments: Number.isFinite(plan.maxDocuments) ? plan.maxDocuments : null,
    maxRounds: Number.isFinite(plan.maxRounds) ? plan.maxRounds : null,
    segments: Array.from({ length: deepest + 1 }, (_, depth) => plan.segmentFor(depth)),
  };
}

async function coordinate(pool: pg.Pool, options: CrawlOptions, name: string): Promise<CrawlResult> {
  const { plan, config, clock, logger, progress, signal } = options;
  // workers keep no archive yet: a snapshot crawled through the coordinator has no WARC files
  const seeds = seedUrls(plan.seeds).slice(0, plan.maxDocuments);
  await createCrawl(pool, name, storedPlan(options), { ...config, warc: false }, seeds);
  logger.info({ crawl: name, seeds: seeds.length }, 'crawl created in the coordinator');
  for (;;) {
    if (signal?.aborted)
      return { complete: false, stats: new CrawlStats().snapshot(), dir: options.dir, seen: 0 };
    const status = await crawlStatus(pool, name);
    progress?.update({
      done: status.recorded,
      total: status.recorded + status.waiting,
      extra: { round: status.round, leased: status.leased },
    });
    if (status.waiting === 0) {
      const round = status.round + 1;
      if (round >= plan.maxRounds) break;
      const joined = await advanceRound(
        pool,
        name,
        round,
        plan.maxDepth,
        plan.maxDocuments - status.assigned,
      );
      if (joined === 0) break;
      logger.info({ round, joined }, 'round started');
      continue;
    }
    await clock.sleep(POLL_MS, signal).catch(() => {});
  }
  await finishCrawl(pool, name);
  const stats = await writeJournal(pool, name, options.dir);
  const snapshot = stats.snapshot();
  progress?.finish({ done: snapshot.documents, total: snapshot.documents });
  return { complete: true, stats: snapshot, dir: options.dir, seen: snapshot.documents };
}

/**
 * Writes the crawl's results as its journal: a round line per round, a document line per URL, the
 * end line. A record whose fetch was handed over to another PLD gets the outcome of the fetch that
 * downloaded that URL, through the same URL claims a one-process crawl uses (a chain of hand-overs
 * that leads back to itself is a redirect loop there too).
 */
async function writeJournal(pool: pg.Pool, crawl: string, dir: string): Promise<CrawlStats> {
  rmSync(join(dir, JOURNAL_FILE), { force: true });
  const journal = openJournal(dir);
  const stats = new CrawlStats();
  const claims = new UrlClaims();
  const handedOver: StoredResult[] = [];
  try {
    for (const [round, urls] of await roundMembers(pool, crawl)) journal.append({ t: 'round', round, urls });
    for await (const result of readResults(pool, crawl)) {
      if (result.handedOver) {
        handedOver.push({ ...result, statements: [] });
        continue;
      }
      journal.append({ t: 'doc', depth: result.depth, record: result.record, statements: result.statements });
      stats.add(result.record);
      claims.finished(result.record);
    }
    // what a handed-over fetch requested itself (all but its last URL) is its own, as in one process
    for (const { url, handedOver: fetched } of handedOver) {
      for (const requested of [url, ...fetched!.redirects.map((hop) => hop.to)].slice(0, -1)) {
        claims.claim(requested, url);
      }
    }
    const resolved = await Promise.all(
      handedOver.map(async ({ depth, record, handedOver: fetched }) => {
        // every URL handed over to was queued in its round and recorded by its PLD's holder
        if (claims.claim(fetched!.finalUrl, record.url)) {
          throw new ObservatoryError(
            'internal',
            `${record.url} was handed over to ${fetched!.finalUrl}, never recorded`,
          );
        }
        const where = { segment: record.segment, round: record.round };
        const complete: DocumentRecord = await claims.handOver(fetched!, where);
        claims.finished(complete);
        return { depth, record: complete };
      }),
    );
    for (const { depth, record } of resolved) {
      journal.append({ t: 'doc', depth, record, statements: [] });
      stats.add(record);
    }
    journal.append({ t: 'end' });
  } finally {
    journal.close();
  }
  return stats;
}
