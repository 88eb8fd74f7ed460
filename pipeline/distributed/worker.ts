import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Clock, CrawlConfig, Logger, PreviousObservation } from '../core/index.ts';
import { crawlConfig, urlPld } from '../core/index.ts';
import {
  type CrawlFetcher,
  type CrawlTools,
  createCrawlTools,
  documentLinks,
  processFetch,
  RevisitPolicy,
  UrlClaims,
} from '../crawl/index.ts';
import { type ContextLeases, SharedContexts } from './contexts.ts';
import { ExchangeBuffer, type StoredExchange } from './exchanges.ts';
import { openPool } from './pool.ts';
import {
  activeCrawl,
  type CrawlRow,
  crawlState,
  isStorageRefusal,
  type Lease,
  leasePld,
  leaveCrawl,
  nextUrl,
  type Outcome,
  otherCrawlWaiting,
  pldRecords,
  recordOutcome,
  releaseLease,
  renewLeases,
  reportFailure,
  storeExchanges,
} from './store.ts';

export interface WorkerOptions {
  /** The coordinator's PostgreSQL URL. */
  readonly coordinator: string;
  /** This worker's name in the leases (unique among the workers: host and pid). */
  readonly id: string;
  /** How long a lease lasts unless renewed; a dead worker's PLDs are taken over after it. */
  readonly leaseMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Stops the worker: fetches in flight are abandoned (their URLs stay waiting) and leases released. */
  readonly signal: AbortSignal;
}

/** A lease this worker holds: stopped when it is lost, runs out locally, or the worker stops. */
interface Held {
  lease: Lease;
  readonly stop: AbortController;
  /** Taken only to fetch JSON-LD contexts of the PLD (not counted against the concurrency). */
  readonly brief: boolean;
  /** Being given back: no new request starts under it. */
  closing: boolean;
  /** Context fetches in flight under it: it is given back only once they ended. */
  readonly requests: Set<Promise<unknown>>;
  /** Local clock time after which no request starts under this lease (renewals move it). */
  deadline: number;
  /** The robots.txt answers as last stored in the lease row (JSON), so that only changes are written. */
  robotsStored: string;
}

/**
 * A worker stops starting requests under a lease once three quarters of it have passed without a
 * renewal: the rest is the margin for its own checks, so that it never starts one after the lease
 * expired in the database (when another worker may take the PLD over).
 */
const LOCAL_SHARE = 0.75;

/** A lease just taken, as held: its local deadline counts from `askedAt` (local clock, before asking). */
function holding(lease: Lease, brief: boolean, askedAt: number, leaseMs: number): Held {
  return {
    lease,
    stop: new AbortController(),
    brief,
    closing: false,
    requests: new Set(),
    deadline: askedAt + leaseMs * LOCAL_SHARE,
    robotsStored: lease.robots ?? '[]',
  };
}

/** What moves with a lease is kept in these: the crawl stage's tools and the re-visit policy. */
type LeaseKeepers = Pick<WorkerCrawl, 'tools' | 'revisits'>;

/**
 * The politeness state moves with the lease: the previous holder's last request counts here too,
 * and what it read of robots.txt holds here (read again only once it expires, as in one process),
 * and so does what it learned of the PLD's 304s (its first one is checked once per crawl).
 */
function adoptLease({ tools, revisits }: LeaseKeepers, h: Held, now: number): void {
  const { pld, delayMs, nextAllowedMs } = h.lease;
  tools.web.robots.adopt(JSON.parse(h.robotsStored));
  revisits?.adoptTrust(pld, h.lease.trust);
  tools.web.gate.setCrawlDelay(pld, delayMs);
  if (nextAllowedMs > now) tools.web.gate.penalise(pld, nextAllowedMs);
}

/** Gives a lease back once its context fetches ended, with its politeness state. */
async function giveBack(pool: pg.Pool, crawl: string, tools: CrawlTools, h: Held, o: WorkerOptions) {
  h.closing = true;
  await Promise.allSettled(h.requests);
  await releaseLease(pool, crawl, o.id, politeness(tools, h));
}

/** Serves crawls from the coordinator until the signal stops it; returns the URLs it recorded. */
export async function runWorker(o: WorkerOptions): Promise<number> {
  const pool = await openPool(o.coordinator, o.logger);
  const pollMs = Math.min(200, o.leaseMs / 8);
  let recorded = 0;
  try {
    while (!o.signal.aborted) {
      const crawl = await activeCrawl(pool);
      if (crawl) recorded += await serveCrawl(pool, crawl, o, pollMs);
      else await o.clock.sleep(pollMs, o.signal).catch(() => {});
    }
    return recorded;
  } finally {
    await pool.end();
  }
}

/**
 * What a worker crawls one crawl with: the crawl stage's tools; its fetcher again, each request
 * stopped with the lease of its URL's PLD; the re-visit policy of the one-process crawl when the
 * crawl is conditional (the previous observation of the URL being fetched comes from its frontier
 * row; the statements a 304 carries over are read by the coordinator, which has the snapshots);
 * and, when the crawl keeps an archive, the exchanges not yet stored, under a name of their own.
 */
interface WorkerCrawl {
  readonly tools: CrawlTools;
  readonly contexts: SharedContexts;
  readonly fetcher: CrawlFetcher;
  readonly revisits: RevisitPolicy | null;
  readonly previous: Map<string, PreviousObservation>;
  readonly exchanges: ExchangeBuffer | null;
  readonly source: string;
}

function workerCrawl(
  config: CrawlConfig,
  held: ReadonlyMap<string, Held>,
  o: WorkerOptions,
): Omit<WorkerCrawl, 'contexts'> {
  const exchanges = config.warc ? new ExchangeBuffer() : null;
  const tools = createCrawlTools(config, o.clock, undefined, exchanges ? [exchanges] : []);
  const fetcher: CrawlFetcher = {
    ...tools.fetcher,
    fetchDocument: (url, signal, claim, validators) =>
      tools.fetcher.fetchDocument(url, signal ?? held.get(urlPld(url))?.stop.signal, claim, validators),
  };
  const previous = new Map<string, PreviousObservation>();
  const revisits = config.conditional
    ? new RevisitPolicy(fetcher, { previous: (url) => previous.get(url), statements: async () => [] })
    : null;
  return { tools, fetcher, revisits, previous, exchanges, source: `${o.id}/${randomUUID()}` };
}

/** The leases the shared contexts fetch under: those held, and brief ones for PLDs nobody holds. */
function contextLeases(
  pool: pg.Pool,
  crawl: string,
  held: Map<string, Held>,
  w: LeaseKeepers,
  o: WorkerOptions,
): ContextLeases {
  return {
    held(pld) {
      const h = held.get(pld);
      return h && !h.closing && !h.stop.signal.aborted ? h : undefined;
    },
    plds: () => [...held.keys()],
    async leaseBriefly(pld) {
      // a lease of it still being given back (or stopped, not yet) would release the new one
      if (held.has(pld)) return null;
      const before = o.clock.now();
      const lease = await leasePld(pool, crawl, o.id, o.leaseMs, pld);
      if (!lease) return null;
      const h = holding(lease, true, before, o.leaseMs);
      adoptLease(w, h, o.clock.now());
      held.set(pld, h);
      return h;
    },
    async releaseBriefly(lease) {
      const h = lease as Held;
      await giveBack(pool, crawl, w.tools, h, o);
      if (held.get(h.lease.pld) === h) held.delete(h.lease.pld);
    },
  };
}

/** Leases PLDs of one crawl and crawls them until the crawl is done or the worker stops. */
async function serveCrawl(pool: pg.Pool, crawl: CrawlRow, o: WorkerOptions, pollMs: number): Promise<number> {
  const config = crawlConfig(crawl.config as Partial<CrawlConfig>);
  const held = new Map<string, Held>();
  const base = workerCrawl(config, held, o);
  const { tools } = base;
  const tasks = new Set<Promise<void>>();
  let recorded = 0;
  let failure: unknown = null;
  const leaving = new AbortController();
  const contexts = new SharedContexts({
    pool,
    crawl: crawl.id,
    config,
    web: tools.web,
    leases: contextLeases(pool, crawl.id, held, base, o),
    clock: o.clock,
    pollMs,
    signal: leaving.signal,
    fail: (error) => {
      failure ??= error;
      for (const h of held.values()) h.stop.abort();
    },
  });
  const w: WorkerCrawl = { ...base, contexts };
  const leased = () => [...held.values()].filter((h) => !h.brief).length;
  // registered before its first lease: its slots count for the round-end rule from now on
  let renewedAt = await renew(pool, crawl.id, config.concurrency, held, o);
  o.logger.info({ crawl: crawl.id, worker: o.id }, 'worker joined crawl');
  try {
    while (!o.signal.aborted && failure === null) {
      while (leased() < config.concurrency) {
        const before = o.clock.now();
        const lease = await leasePld(pool, crawl.id, o.id, o.leaseMs);
        if (!lease) break;
        const h = holding(lease, false, before, o.leaseMs);
        held.set(lease.pld, h);
        const task = crawlPld(pool, crawl, h, w, config, o)
          .then((n) => {
            recorded += n;
          })
          .catch((error: unknown) => {
            if (!h.stop.signal.aborted) failure ??= error;
          })
          .finally(() => {
            // a brief lease of this worker may have taken the PLD once this one was given back
            if (held.get(lease.pld) === h) held.delete(lease.pld);
            tasks.delete(task);
          });
        tasks.add(task);
      }
      // idle: the crawl is over, or waits for its coordinator while another crawl has work
      if (held.size === 0) {
        if ((await crawlState(pool, crawl.id)) !== 'crawling') break;
        if (await otherCrawlWaiting(pool, crawl.id)) break;
      }
      const pause = new AbortController();
      await Promise.race([...tasks, o.clock.sleep(pollMs, pause.signal).catch(() => {})]);
      pause.abort();
      if (o.clock.now() - renewedAt >= o.leaseMs / 4) {
        renewedAt = await renew(pool, crawl.id, config.concurrency, held, o);
      }
      for (const h of held.values()) if (o.clock.now() >= h.deadline) h.stop.abort();
      await contexts.serveAsked();
    }
  } finally {
    for (const h of held.values()) h.stop.abort();
    leaving.abort();
    await Promise.all(tasks);
    await contexts.settled();
    await tools.close();
    // exchanges no recorded URL took (abandoned or dropped fetches) did happen: the archive keeps them
    const left = w.exchanges?.take() ?? [];
    await storeExchanges(pool, crawl.id, w.source, left).catch((error: unknown) =>
      o.logger.warn({ error: (error as Error).message, exchanges: left.length }, 'exchanges not stored'),
    );
    // the coordinator reports the error; unreachable database: the row expires with the leases
    await (failure === null
      ? leaveCrawl(pool, crawl.id, o.id)
      : reportFailure(pool, crawl.id, o.id, messageOf(failure))
    ).catch(() => {});
  }
  if (failure !== null) throw failure;
  return recorded;
}

/** An error's message as the coordinator reports it. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}

/**
 * Keeps this worker registered with its `slots` and renews every lease held; those lost are
 * stopped. Returns when the renewal was asked (local clock).
 */
async function renew(
  pool: pg.Pool,
  crawl: string,
  slots: number,
  held: Map<string, Held>,
  o: WorkerOptions,
): Promise<number> {
  const before = o.clock.now();
  const renewed = await renewLeases(pool, crawl, o.id, slots, [...held.keys()], o.leaseMs);
  for (const [pld, h] of held) {
    if (renewed.has(pld)) h.deadline = before + o.leaseMs * LOCAL_SHARE;
    else h.stop.abort();
  }
  return before;
}

/**
 * The PLD's politeness state as the fetcher's gate has it now, and its robots.txt answers where
 * they changed since last stored, to move with the lease. The trust in its 304s stays as of the
 * last URL recorded: a fetch abandoned mid-check is fetched, and checked, again by the next holder.
 */
function politeness(tools: CrawlTools, h: Held): Lease {
  const { lease } = h;
  const ready = tools.fetcher.readyAt(lease.pld);
  const robots = JSON.stringify(tools.web.robots.entriesOf(lease.pld));
  const changed = robots !== h.robotsStored;
  h.robotsStored = robots;
  return {
    pld: lease.pld,
    nextAllowedMs: Number.isFinite(ready) ? Math.max(ready, lease.nextAllowedMs) : lease.nextAllowedMs,
    delayMs: tools.fetcher.delayFor(lease.pld),
    robots: changed ? robots : null,
    trust: lease.trust,
  };
}

/**
 * Crawls one leased PLD, one URL at a time in the one-process queue's order, with the existing
 * per-document code: the fetcher (politeness, robots.txt, redirects), the re-visit policy, the
 * URL claims that store a final URL once, and processFetch. A redirect into another PLD stops
 * there: that URL is queued for its PLD's holder (recordOutcome), to continue the fetch where it is
 * not a URL of its own, and this record is completed when the journal is written.
 */
async function crawlPld(
  pool: pg.Pool,
  crawl: CrawlRow,
  h: Held,
  w: WorkerCrawl,
  config: CrawlConfig,
  o: WorkerOptions,
): Promise<number> {
  const { tools } = w;
  const { pld } = h.lease;
  adoptLease(w, h, o.clock.now());
  const claims = new UrlClaims();
  for (const record of await pldRecords(pool, crawl.id, pld)) claims.finished(record);
  const { segments, maxDepth } = crawl.plan;
  let recorded = 0;
  let lost = false;
  try {
    for (;;) {
      if (h.stop.signal.aborted) return recorded;
      const next = await nextUrl(pool, crawl.id, pld);
      if (!next) return recorded;
      const claim = (url: string) => urlPld(url) === pld && claims.claim(url, next.url);
      if (next.previous) w.previous.set(next.url, next.previous);
      const revisit = w.revisits
        ? await w.revisits.fetch(next.url, claim).finally(() => w.previous.delete(next.url))
        : {
            fetched: await w.fetcher.fetchDocument(next.url, undefined, claim),
            validation: null,
            carried: null,
          };
      const { fetched } = revisit;
      const where = { segment: segments[Math.min(next.depth, segments.length - 1)], round: next.round };
      const foreign = fetched.handedOver && urlPld(fetched.finalUrl) !== pld;
      const doc =
        fetched.handedOver && !foreign
          ? { record: await claims.handOver(fetched, where), statements: [] }
          : await processFetch(fetched, where, { config, loadContext: w.contexts.load }, revisit);
      // a wait for a JSON-LD context can outlast the lease (or the worker): such a record is not kept
      if (h.stop.signal.aborted) return recorded;
      // a continued fetch's document is that of the URL asked for, as in one process's one fetch
      const asked = next.continues ?? next.url;
      const links =
        next.depth < maxDepth
          ? documentLinks(asked, doc.record.finalUrl, doc.statements, config.maxLinksPerDocument)
          : [];
      h.lease = { ...politeness(tools, h), trust: w.revisits?.trustOf(pld) ?? h.lease.trust };
      const exchanges = w.exchanges?.take() ?? [];
      const outcome: Outcome = {
        url: next.url,
        depth: next.depth,
        round: next.round,
        record: doc.record,
        statements: doc.statements,
        handedOver: foreign ? fetched : null,
        links,
        // the record's WARC pointer is its final response's, as in one process (a hand-over has none)
        response: fetched.handedOver ? null : fetched.responseId,
        carried: revisit.carried !== null,
        continues: next.continues,
      };
      const ok = await record(pool, crawl.id, h.lease, outcome, w, o, exchanges).catch((error: unknown) => {
        w.exchanges?.putBack(exchanges);
        throw error;
      });
      if (!ok) w.exchanges?.putBack(exchanges);
      if (!ok) {
        lost = true;
        o.logger.warn({ pld, url: next.url }, 'lease lost before the document was recorded; dropped');
        return recorded;
      }
      if (!foreign) claims.finished(doc.record);
      recorded++;
    }
  } finally {
    if (!lost) await giveBack(pool, crawl.id, tools, h, o);
  }
}

/**
 * Records an outcome (recordOutcome). One that PostgreSQL refuses (isStorageRefusal: a value it
 * cannot hold, which every worker would send again) is recorded as the document's `internal`
 * failure instead, without its statements, links and redirects (and, refused again, without the
 * exchanges it brought), so that no worker stops on it; the log says what was refused.
 */
async function record(
  pool: pg.Pool,
  crawl: string,
  lease: Lease,
  outcome: Outcome,
  w: WorkerCrawl,
  o: WorkerOptions,
  exchanges: readonly StoredExchange[],
): Promise<boolean> {
  try {
    return await recordOutcome(pool, crawl, o.id, lease, outcome, w.source, exchanges);
  } catch (error) {
    if (!isStorageRefusal(error)) throw error;
    const message = `the coordinator could not store this document's outcome: ${(error as Error).message}`;
    o.logger.error({ url: outcome.url, error: (error as Error).message }, 'outcome refused by PostgreSQL');
    const failed: Outcome = {
      ...outcome,
      record: {
        ...outcome.record,
        error: 'internal',
        errorMessage: message,
        statements: 0,
        graphHash: null,
        redirects: [],
      },
      statements: [],
      handedOver: null,
      links: [],
      carried: false,
    };
    try {
      return await recordOutcome(pool, crawl, o.id, lease, failed, w.source, exchanges);
    } catch (again) {
      if (!isStorageRefusal(again) || exchanges.length === 0) throw again;
      o.logger.error(
        { url: outcome.url, exchanges: exchanges.length },
        'exchanges refused by PostgreSQL; not archived',
      );
      return recordOutcome(pool, crawl, o.id, lease, failed, w.source, []);
    }
  }
}
