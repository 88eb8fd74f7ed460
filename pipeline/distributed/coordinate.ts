import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import type { CrawlArchive } from '../archive/index.ts';
import { type DocumentRecord, ObservatoryError, type Statement, type WarcPointer } from '../core/index.ts';
import {
  type CrawlOptions,
  type CrawlResult,
  CrawlStats,
  documentLinks,
  endsRoundEarly,
  JOURNAL_FILE,
  mayEndRoundEarly,
  openJournal,
  type Revisits,
  runCrawl,
  seedUrls,
  UrlClaims,
} from '../crawl/index.ts';
import { crawlIdOf } from './crawl-id.ts';
import { exchangeOfRow } from './exchanges.ts';
import { openPool } from './pool.ts';
import {
  advanceRound,
  carriedResults,
  crawlStatus,
  createCrawl,
  type DocumentLinks,
  finishCrawl,
  markJournaled,
  readExchanges,
  readResults,
  roundEndView,
  roundMembers,
  type StoredPlan,
  type StoredResult,
} from './store.ts';
import { CrawlWatch, WATCH_TIMES, type WatchTimes } from './watch.ts';

/** How often the coordinator looks at the crawl (progress, round end). */
const POLL_MS = 250;
/** How often the early round end is checked, as in one process (it scans the candidates). */
const EARLY_CHECK_MS = 1000;
/** Depths whose segment the plan is asked for: beyond, a document has the last one. */
const MAX_SEGMENT_DEPTH = 16;

/**
 * The crawl of a run through the coordinator: creates it in PostgreSQL (or finds it again when the
 * snapshot was resumed), lets workers crawl it, starts each round once the previous one is done
 * (breadth-first rounds with the one-process frontier's order and budget), and finally writes every
 * result into the run's crawl journal, so that the snapshot stage publishes it as usual.
 *
 * A round ends when no URL waits, or early by the one-process round-end rule (roundEndsEarly),
 * which applies only to crawls without a budget (a budgeted crawl runs each round out so that what
 * joins a round does not depend on timing): the weekly snapshot and a tick are budgeted; an
 * expansion crawl is not.
 *
 * The crawl's id in the database is the run's name and a random part kept in the run's crawl
 * folder (crawlIdOf), so that observatories sharing the database never share a crawl. Its workers
 * are watched (CrawlWatch, `watch` to test it sooner): a worker's error, and URLs waiting with no
 * worker or no progress, are logged.
 */
export function coordinatedCrawl(
  url: string,
  watch: WatchTimes = WATCH_TIMES,
): (options: CrawlOptions, name: string) => Promise<CrawlResult> {
  return async (options, name) => {
    const id = await crawlIdOf(options.dir, name);
    const pool = await openPool(url, options.logger);
    try {
      return await coordinate(pool, options, id, watch);
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

async function coordinate(
  pool: pg.Pool,
  options: CrawlOptions,
  id: string,
  watchTimes: WatchTimes,
): Promise<CrawlResult> {
  const { plan, config, clock, logger, progress, signal } = options;
  // re-visits are conditional as in one process: only with previous observations and config.conditional
  const revisits = config.conditional ? options.revisits : undefined;
  const seeds = seedUrls(plan.seeds).slice(0, plan.maxDocuments);
  const row = await createCrawl(pool, id, storedPlan(options), config, seeds, (url) =>
    revisits?.previous(url),
  );
  // a rerun of a crawl whose archive and journal were written (its publish was interrupted): the
  // journal has it all, and the archive must not get its exchanges again
  if (row.journaled && existsSync(join(options.dir, JOURNAL_FILE))) return runCrawl(options);
  logger.info({ crawl: id, seeds: seeds.length }, 'crawl created in the coordinator');
  const watch = new CrawlWatch(pool, id, clock, logger, watchTimes);
  let earlyCheckedAt = Number.NEGATIVE_INFINITY;
  for (;;) {
    if (signal?.aborted)
      return { complete: false, stats: new CrawlStats().snapshot(), dir: options.dir, seen: 0 };
    const status = await crawlStatus(pool, id);
    const workers = await watch.look(status);
    progress?.update({
      done: status.recorded,
      total: status.recorded + status.waiting,
      extra: { round: status.round, leased: status.leased, workers },
    });
    let early = false;
    if (status.waiting > 0 && !revisits && clock.now() - earlyCheckedAt >= EARLY_CHECK_MS) {
      earlyCheckedAt = clock.now();
      early = await roundEndsEarly(pool, id, options, status.round);
    }
    if (status.waiting === 0 || early) {
      const round = status.round + 1;
      if (round >= plan.maxRounds) break;
      const carried = revisits
        ? await carriedLinks(pool, id, status.round, plan.maxDepth, revisits, config.maxLinksPerDocument)
        : [];
      const joined = await advanceRound(
        pool,
        id,
        round,
        plan.maxDepth,
        Number.isFinite(plan.maxDocuments) ? plan.maxDocuments - status.assigned : null,
        carried,
      );
      if (joined === 0 && !early) break;
      logger.info({ round, joined, early }, 'round started');
      continue;
    }
    await clock.sleep(POLL_MS, signal).catch(() => {});
  }
  await finishCrawl(pool, id);
  const pointers = options.archive ? await writeArchive(pool, id, options.archive) : new Map();
  const stats = await writeJournal(pool, id, options.dir, pointers, revisits);
  await markJournaled(pool, id);
  const snapshot = stats.snapshot();
  progress?.finish({ done: snapshot.documents, total: snapshot.documents });
  return { complete: true, stats: snapshot, dir: options.dir, seen: snapshot.documents };
}

/**
 * The round-end rule (pipeline/crawl/rules.ts) on what the coordinator sees: PLDs with URLs
 * waiting, the fetch slots of the live workers (`concurrency` PLDs each), and whether the next
 * round's candidates bring PLDs none of those is. The URLs still waiting keep their round. The
 * slots are those of every live worker (crawl_worker), leases held or not: a worker idle for want
 * of a PLD is an idle slot, as in one process. Not with re-visits: their 304s' links join when a
 * round ends, once all of its results are in.
 */
async function roundEndsEarly(pool: pg.Pool, name: string, options: CrawlOptions, round: number) {
  const { plan, config } = options;
  const place = { round, maxRounds: plan.maxRounds, budgeted: Number.isFinite(plan.maxDocuments) };
  if (!mayEndRoundEarly(place)) return false;
  const view = await roundEndView(pool, name, plan.maxDepth, config.concurrency);
  // no live worker yet: 0 slots, so the rule waits for one rather than count slots nobody has
  return endsRoundEarly(
    { ...place, active: view.active, slots: view.slots, rule: config.roundEnd },
    () => view.incoming,
  );
}

/** The links of round `round`'s 304s that carried statements over: the workers never had those statements. */
async function carriedLinks(
  pool: pg.Pool,
  crawl: string,
  round: number,
  maxDepth: number,
  revisits: Revisits,
  maxLinks: number,
): Promise<DocumentLinks[]> {
  const found: DocumentLinks[] = [];
  for (const { url, depth, record } of await carriedResults(pool, crawl, round, maxDepth)) {
    const statements = await carriedStatements(url, revisits);
    found.push({ depth, links: documentLinks(url, record.finalUrl, statements, maxLinks) });
  }
  return found;
}

/** The previous statements a 304 of `url` carries over. */
async function carriedStatements(url: string, revisits: Revisits): Promise<Statement[]> {
  const previous = revisits.previous(url);
  if (!previous)
    throw new ObservatoryError('internal', `${url} carried statements over without a previous observation`);
  return revisits.statements(previous);
}

/**
 * Writes the exchanges the workers stored into the run's WARC archive, in the order they were
 * stored (one process writes them in the order they ended: each URL gets the same records), and
 * returns the pointer of each recorded URL's final response. Every write of a batch is awaited
 * before the next batch is read, so that at most a batch of bodies is held.
 */
async function writeArchive(
  pool: pg.Pool,
  crawl: string,
  archive: CrawlArchive,
): Promise<Map<string, WarcPointer>> {
  const pointers = new Map<string, WarcPointer>();
  let id = 0;
  for await (const batch of readExchanges(pool, crawl)) {
    const written = batch.map(async (row) => {
      // as one process archives a fetch: its final response may be a revisit of the URL's last record
      const release = row.responseOf !== null ? archive.expect(row.responseOf) : null;
      archive.exchanged(exchangeOfRow(row, ++id));
      release?.();
      const pointer = await archive.pointerOf(id);
      if (pointer && row.responseOf !== null) pointers.set(row.responseOf, pointer);
    });
    await Promise.all(written);
  }
  return pointers;
}

/** A record with the pointer of its final response (workers write no archive: their records have none). */
function withPointer(record: DocumentRecord, pointer: WarcPointer | undefined): DocumentRecord {
  if (!pointer) return record;
  return {
    ...record,
    warcFilename: pointer.filename,
    warcOffset: pointer.offset,
    warcLength: pointer.length,
  };
}

/**
 * The result of a fetch that stopped at another PLD together with the fetches that continued it
 * there (each taken out of `continued`), as one process's one fetch records it: its own url, round,
 * segment and start, the redirects of all, the rest from the last; still handed over when the last
 * stopped at a URL it does not continue (one with a row of its own, or requested by another fetch).
 * Returns it with the URL whose result holds the final response (its WARC pointer).
 */
function wholeFetch(
  first: StoredResult,
  continued: Map<string, StoredResult>,
): { result: StoredResult; responseOf: string } {
  let last = first;
  const redirects = [...first.record.redirects];
  let durationMs = first.record.durationMs;
  for (;;) {
    const next = last.handedOver && continued.get(last.handedOver.finalUrl);
    if (!next || next.continues !== first.url) break;
    continued.delete(next.url);
    redirects.push(...next.record.redirects);
    durationMs += next.record.durationMs;
    last = next;
  }
  if (last === first) return { result: first, responseOf: first.url };
  const { url, pld, segment, round, fetchedAt } = first.record;
  const record = { ...last.record, url, pld, segment, round, fetchedAt, durationMs, redirects };
  const handedOver = last.handedOver && {
    ...last.handedOver,
    url,
    startedAt: fetchedAt,
    durationMs,
    redirects,
  };
  return { result: { ...first, record, statements: last.statements, handedOver }, responseOf: last.url };
}

/**
 * Writes the crawl's results as its journal: a round line per round, a document line per URL, the
 * end line. Each record gets its WARC pointer, and a 304 the statements it carries over. A fetch
 * that stopped at another PLD is one record with the fetches that continued it there (wholeFetch);
 * one that stopped at a URL another fetch requested gets the outcome of the fetch that downloaded
 * it, through the same URL claims a one-process crawl uses (a chain of hand-overs that leads back
 * to itself is a redirect loop there too).
 */
async function writeJournal(
  pool: pg.Pool,
  crawl: string,
  dir: string,
  pointers: ReadonlyMap<string, WarcPointer>,
  revisits: Revisits | undefined,
): Promise<CrawlStats> {
  rmSync(join(dir, JOURNAL_FILE), { force: true });
  const journal = openJournal(dir);
  const stats = new CrawlStats();
  const claims = new UrlClaims();
  const handedOver: StoredResult[] = [];
  /** The results of continued fetches by URL: none is a row of its own (wholeFetch). */
  const continued = new Map<string, StoredResult>();
  /** The URL of each continued fetch's first result (its row's), by the continuation's URL. */
  const rowOf = new Map<string, string>();
  /**
   * Records a worker took from another fetch of its PLD (downloadedBy): written once every
   * continuation is known, since the fetch they name may be a continuation, whose row is the
   * first URL's (results stream in URL order).
   */
  const takenOver: StoredResult[] = [];
  const write = (depth: number, record: DocumentRecord, statements: readonly Statement[]) => {
    journal.append({ t: 'doc', depth, record, statements });
    stats.add(record);
    claims.finished(record);
  };
  try {
    for (const [round, urls] of await roundMembers(pool, crawl)) journal.append({ t: 'round', round, urls });
    for await (const result of readResults(pool, crawl)) {
      if (result.continues !== null) {
        continued.set(result.url, result);
        rowOf.set(result.url, result.continues);
      } else if (result.handedOver) handedOver.push(result);
      else if (result.record.downloadedBy !== undefined && result.record.downloadedBy !== result.url)
        takenOver.push(result);
      else {
        let { record, statements } = result;
        if (result.carried && revisits) {
          statements = await carriedStatements(record.url, revisits);
          record = { ...record, statements: statements.length };
        }
        write(result.depth, withPointer(record, pointers.get(record.url)), statements);
      }
    }
    for (const { depth, record, statements } of takenOver) {
      const downloadedBy = rowOf.get(record.downloadedBy!) ?? record.downloadedBy!;
      write(depth, withPointer({ ...record, downloadedBy }, pointers.get(record.url)), statements);
    }
    const stopped: StoredResult[] = [];
    for (const first of handedOver) {
      const { result, responseOf } = wholeFetch(first, continued);
      if (result.handedOver) stopped.push({ ...result, statements: [] });
      else write(result.depth, withPointer(result.record, pointers.get(responseOf)), result.statements);
    }
    if (continued.size > 0) {
      const [url, { continues }] = [...continued][0];
      throw new ObservatoryError(
        'internal',
        `${url} continued the fetch of ${continues}, which never reached it`,
      );
    }
    // what a handed-over fetch requested itself (all but its last URL) is its own, as in one process
    const ownPath = ({ url, handedOver: fetched }: StoredResult) =>
      [url, ...fetched!.redirects.map((hop) => hop.to)].slice(0, -1);
    for (const result of stopped)
      for (const requested of ownPath(result)) claims.claim(requested, result.url);
    const resolved = await Promise.all(
      stopped.map(async (result) => {
        const { depth, record, handedOver: fetched } = result;
        // every URL handed over to was queued in its round and recorded by its PLD's holder, or is
        // on the fetch's own path (a loop through another PLD: handOver tells)
        if (!ownPath(result).includes(fetched!.finalUrl) && claims.claim(fetched!.finalUrl, record.url)) {
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
