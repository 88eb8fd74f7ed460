import type { CrawlArchive } from '../archive/index.ts';
import type {
  BodyCost,
  Clock,
  CrawlConfig,
  CrawlSegment,
  DocumentRecord,
  FetchResult,
  Logger,
  MemoryLease,
  Progress,
  Statement,
  Validators,
} from '../core/index.ts';
import { MemoryBudget, normaliseIri, ObservatoryError, withCleanup } from '../core/index.ts';
import { type ContextLoader, readCost } from '../rdf/index.ts';
import type { UrlClaim } from '../web/index.ts';
import { CrawlStats, type CrawlStatsSnapshot } from './crawl-stats.ts';
import { processFetch } from './document.ts';
import { Frontier, type RoundUrl } from './frontier.ts';
import { type Journal, openJournal } from './journal.ts';
import { type ReadyPld, rankReady } from './policy.ts';
import { RevisitPolicy, type Revisits } from './revisit.ts';
import { documentLinks, endsRoundEarly, mayEndRoundEarly } from './rules.ts';
import { UrlClaims } from './url-claims.ts';

/** What the crawl needs from the web stage: polite fetches, and when each PLD may be asked again. */
export interface CrawlFetcher {
  /**
   * `claim` is asked before each request; `validators` make the request for their URL conditional;
   * the body is charged to `lease` as it arrives (a fetcher that does not is charged afterwards);
   * `answered` is called with the fetch once its last answer is over, before the fetcher's own work on it
   * (its archive record), so that the crawl can give the PLD back without waiting for that.
   */
  fetchDocument(
    url: string,
    signal?: AbortSignal,
    claim?: UrlClaim,
    validators?: Validators,
    lease?: MemoryLease,
    answered?: (fetched: FetchResult) => void,
  ): Promise<FetchResult>;
  /** Earliest clock time at which a request to `pld` may start. */
  readyAt(pld: string): number;
  /** The PLD's effective delay between request starts (ours, or its robots.txt Crawl-delay). */
  delayFor(pld: string): number;
}

/** What to crawl: the seeds (round 0) and how far to go from them. */
export interface CrawlPlan {
  readonly seeds: readonly string[];
  /** Links are followed from documents whose depth is below this (2 = a 2-hop crawl). */
  readonly maxDepth: number;
  /** Documents fetched at most, seeds included. */
  readonly maxDocuments: number;
  /** Rounds at most (round 0 holds the seeds). */
  readonly maxRounds: number;
  /** The segment a document at this depth belongs to. */
  segmentFor(depth: number): CrawlSegment;
}

/**
 * Where a document is in the crawl: its fetch started (a fetch slot and its PLD taken), fetched,
 * parsed and hashed, journaled; its PLD free for the next document (`freed`), its work over and
 * its slot given back (`released`).
 */
export const DOCUMENT_PHASES = ['taken', 'fetched', 'parsed', 'journaled', 'freed', 'released'] as const;
export type DocumentPhase = (typeof DOCUMENT_PHASES)[number];

/**
 * Told of the crawl's moments as they happen, for an instrument that times them (idle-gaps.ts).
 * Optional, so that a crawl without one pays nothing. Must be cheap and must not throw.
 */
export interface CrawlObserver {
  /** Fetch slots in use changed: `busy` of config.concurrency. */
  slots(busy: number): void;
  /** The document `url` of `pld` reached `phase`. */
  document(pld: string, url: string, phase: DocumentPhase): void;
}

export interface CrawlOptions {
  readonly plan: CrawlPlan;
  readonly config: CrawlConfig;
  readonly fetcher: CrawlFetcher;
  /** Folder of the crawl's journal; a rerun with the same folder resumes. */
  readonly dir: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly progress?: Progress;
  readonly loadContext?: ContextLoader;
  /** Aborting stops new fetches; fetches in flight finish and are journaled, so a rerun resumes. */
  readonly signal?: AbortSignal;
  /**
   * What the documents in flight may cost together (default: config.memoryBudgetMb); given, a test
   * reads its accounting.
   */
  readonly memoryBudget?: MemoryBudget;
  /** Previous observations: with them (and config.conditional) re-visits are conditional (revisit.ts). */
  readonly revisits?: Revisits;
  /**
   * The crawl's WARC archive, which `fetcher` already writes to; a crawl whose fetches happen in
   * other processes (the distributed mode) writes their exchanges into it.
   */
  readonly archive?: CrawlArchive | null;
  readonly observer?: CrawlObserver;
}

export interface CrawlResult {
  /** False when the crawl was stopped by the signal before it finished. */
  readonly complete: boolean;
  readonly stats: CrawlStatsSnapshot;
  readonly dir: string;
  /** URLs the frontier knew at the end (fetched, queued and candidates): its memory is this big. */
  readonly seen: number;
}

const MIB = 1024 * 1024;

/** The seeds as round-0 URLs: normalised, http(s) only, first occurrence kept. */
export function seedUrls(seeds: readonly string[]): RoundUrl[] {
  const urls = new Set<string>();
  for (const seed of seeds) {
    const url = normaliseIri(seed.trim());
    if (url) urls.add(url);
  }
  return [...urls].map((url) => [url, 0] as const);
}

/** One crawl as a small state machine over the frontier; the journal makes every step replayable. */
class CrawlRun {
  private readonly frontier = new Frontier();
  private readonly stats = new CrawlStats();
  private readonly claims = new UrlClaims();
  private readonly inflightByPld = new Map<string, number>();
  private readonly lastServed = new Map<string, number>();
  private readonly inflight = new Set<Promise<void>>();
  private serveSeq = 0;
  private round = -1;
  private failure: unknown = null;
  private wake: (() => void) | null = null;
  private lastEarlyCheck = Number.NEGATIVE_INFINITY;

  private readonly o: CrawlOptions;
  private readonly journal: Journal;
  private readonly revisits: RevisitPolicy | null;
  /**
   * The memory budget of the documents in flight: a heavy-tailed Web brings documents of tens of
   * MiB, and 64 fetch slots receiving large documents faster than two cores parse them would pile
   * their bodies and statements up. Each document's lease is charged as its body arrives (the web
   * stage pauses reading past the budget) and given back once it is journaled; no fetch starts
   * while the budget is spent (core/memory-budget.ts).
   */
  private readonly memory: MemoryBudget;
  /** What a document's body costs in that budget: its reading as rdf/read-cost.ts has it. */
  private readonly cost: BodyCost;
  /** The context loader, its waits known to the budget (a document waiting for one cannot give its bytes back). */
  private readonly loadContext: ContextLoader | undefined;

  constructor(options: CrawlOptions, journal: Journal) {
    this.o = options;
    this.journal = journal;
    this.memory = options.memoryBudget ?? new MemoryBudget(options.config.memoryBudgetMb * MIB);
    this.cost = (type, bytes) => readCost(type, bytes, options.config.parseMemoryMb);
    const load = options.loadContext;
    this.loadContext = load && ((url) => this.memory.aside(() => load(url)));
    this.revisits =
      options.revisits && options.config.conditional
        ? new RevisitPolicy(options.fetcher, options.revisits)
        : null;
  }

  /** Replays the journal line by line; says whether it held anything and whether the crawl had ended. */
  replay(): { lines: number; ended: boolean } {
    const { plan } = this.o;
    let ended = false;
    let lines = 0;
    for (const line of this.journal.replay()) {
      lines++;
      if (line.t === 'round') {
        this.round = line.round;
        this.frontier.assign(line.urls, line.round);
      } else if (line.t === 'doc') {
        this.frontier.markDone(line.record.url);
        this.afterDocument(line.record.url, line.depth, line.record, line.statements, plan.maxDepth);
      } else {
        ended = true;
      }
    }
    return { lines, ended };
  }

  async run(): Promise<boolean> {
    const { plan, config, signal } = this.o;
    if (this.round < 0) this.beginRound(0, seedUrls(plan.seeds).slice(0, plan.maxDocuments));
    while (!signal?.aborted && this.failure === null) {
      this.fill();
      if (this.frontier.queued === 0 && this.inflight.size === 0) {
        if (!this.nextRound()) break;
        continue;
      }
      if (this.shouldEndRoundEarly()) {
        this.nextRound();
        continue;
      }
      await this.waitForChange(config.delayMs);
      this.reportProgress();
    }
    await Promise.all(this.inflight);
    if (this.failure !== null) throw this.failure;
    const { peak, waited, overdrawn } = this.memory;
    this.o.logger.info({ peakMiB: Math.round(peak / MIB), waited, overdrawn }, 'memory budget');
    this.reportProgress(true);
    const complete = !signal?.aborted;
    if (complete) this.journal.append({ t: 'end' });
    return complete;
  }

  result(complete: boolean): CrawlResult {
    return { complete, stats: this.stats.snapshot(), dir: this.o.dir, seen: this.frontier.seen };
  }

  private budget(): number {
    return this.o.plan.maxDocuments - this.stats.done - this.frontier.queued - this.inflight.size;
  }

  private beginRound(round: number, urls: readonly RoundUrl[]): void {
    this.round = round;
    this.frontier.assign(urls, round);
    this.journal.append({ t: 'round', round, urls });
    this.o.logger.info({ round, joined: urls.length, queued: this.frontier.queued }, 'round started');
  }

  private nextRound(): boolean {
    const { plan } = this.o;
    if (this.round + 1 >= plan.maxRounds) return false;
    const round = this.round + 1;
    const joined = this.frontier.startRound(round, plan.maxDepth, this.budget());
    if (joined.length === 0 && this.frontier.queued === 0) return false;
    this.round = round;
    this.journal.append({ t: 'round', round, urls: joined });
    this.o.logger.info({ round, joined: joined.length, queued: this.frontier.queued }, 'round started');
    return true;
  }

  /** The round-end rule (rules.ts) on the frontier; looked at at most once a second (it scans candidates). */
  private shouldEndRoundEarly(): boolean {
    const { plan, config, clock } = this.o;
    const place = {
      round: this.round,
      maxRounds: plan.maxRounds,
      budgeted: Number.isFinite(plan.maxDocuments),
    };
    if (!mayEndRoundEarly(place)) return false;
    const active = this.frontier.activePlds();
    const view = {
      ...place,
      active: active.length,
      slots: config.concurrency,
      rule: config.roundEnd,
    };
    const incoming = () => {
      const plds = this.frontier.candidatePlds(plan.maxDepth);
      for (const pld of active) plds.delete(pld);
      return plds.size > 0;
    };
    const mayLook = () => {
      const now = clock.now();
      if (now - this.lastEarlyCheck < 1000) return false;
      this.lastEarlyCheck = now;
      return true;
    };
    return endsRoundEarly(view, incoming, mayLook);
  }

  /** Starts fetches on the best ready PLDs until the slots are full or nothing is ready. */
  private fill(): void {
    const { config, fetcher, clock } = this.o;
    let free = config.concurrency - this.inflight.size;
    if (free <= 0 || this.o.signal?.aborted || this.memory.saturated) return;
    const now = clock.now();
    const ready: ReadyPld[] = [];
    for (const pld of this.frontier.activePlds()) {
      if ((this.inflightByPld.get(pld) ?? 0) >= config.perPld) continue;
      if (fetcher.readyAt(pld) > now) continue;
      ready.push({
        pld,
        queued: this.frontier.queuedFor(pld),
        delayMs: fetcher.delayFor(pld),
        lastServed: this.lastServed.get(pld) ?? 0,
      });
    }
    for (const { pld } of rankReady(config.policy, ready)) {
      if (free-- <= 0) break;
      const next = this.frontier.take(pld);
      if (next) this.start(pld, next.url, next.depth);
    }
  }

  private start(pld: string, url: string, depth: number): void {
    this.inflightByPld.set(pld, (this.inflightByPld.get(pld) ?? 0) + 1);
    this.lastServed.set(pld, ++this.serveSeq);
    const observer = this.o.observer;
    observer?.document(pld, url, 'taken');
    let fetching = true;
    // the PLD is given back as soon as the fetch's last answer is over: its next request must not
    // wait for this document's archive record, parse and journal line, which queue behind every
    // other document's on a busy machine (issue #35). The slot is kept until the document is
    // journaled, so that the documents between fetch and journal stay as many as the slots
    const fetchOver = () => {
      if (!fetching) return;
      fetching = false;
      this.inflightByPld.set(pld, (this.inflightByPld.get(pld) ?? 1) - 1);
      observer?.document(pld, url, 'freed');
      this.wake?.();
    };
    const task = this.fetchOne(pld, url, depth, fetchOver)
      .catch((error: unknown) => {
        this.failure ??= error;
        this.claims.failed(url, error);
      })
      .finally(() => {
        fetchOver();
        this.inflight.delete(task);
        observer?.document(pld, url, 'released');
        observer?.slots(this.inflight.size);
        this.wake?.();
      });
    this.inflight.add(task);
    observer?.slots(this.inflight.size);
  }

  private async fetchOne(pld: string, url: string, depth: number, fetchOver: () => void): Promise<void> {
    const { plan, fetcher, logger, config, observer } = this.o;
    const claim = (u: string) => this.claims.claim(u, url);
    const lease = this.memory.lease(this.cost);
    try {
      const revisit = this.revisits
        ? await this.revisits.fetch(url, claim, lease, fetchOver)
        : {
            fetched: await fetcher.fetchDocument(url, undefined, claim, undefined, lease, fetchOver),
            validation: null,
            carried: null,
          };
      const { fetched } = revisit;
      observer?.document(pld, url, 'fetched');
      fetchOver();
      const where = { segment: plan.segmentFor(depth), round: this.round };
      if (fetched.body) lease.settle(fetched.headers['content-type'] ?? null, fetched.body.length);
      // a final URL another fetch requested is not downloaded again: this record points at that fetch's
      const doc = fetched.handedOver
        ? { record: await this.claims.handOver(fetched, where), statements: [] }
        : await processFetch(fetched, where, { config, loadContext: this.loadContext }, revisit);
      observer?.document(pld, url, 'parsed');
      this.journal.append({ t: 'doc', depth, record: doc.record, statements: doc.statements });
      observer?.document(pld, url, 'journaled');
      this.afterDocument(url, depth, doc.record, doc.statements, plan.maxDepth);
      logger.debug(
        { url, status: doc.record.status, error: doc.record.error, statements: doc.record.statements },
        'fetched',
      );
    } finally {
      lease.release();
    }
  }

  private afterDocument(
    url: string,
    depth: number,
    record: DocumentRecord,
    statements: readonly Statement[],
    maxDepth: number,
  ): void {
    this.stats.add(record);
    this.claims.finished(record);
    for (const hop of record.redirects) this.frontier.markSeen(hop.to, depth);
    if (depth >= maxDepth) return;
    for (const link of documentLinks(url, record.finalUrl, statements, this.o.config.maxLinksPerDocument)) {
      this.frontier.discover(link, depth);
    }
  }

  private async waitForChange(fallbackMs: number): Promise<void> {
    const { fetcher, clock, config } = this.o;
    let until = Number.POSITIVE_INFINITY;
    if (this.inflight.size < config.concurrency) {
      for (const pld of this.frontier.activePlds()) {
        if ((this.inflightByPld.get(pld) ?? 0) < config.perPld) until = Math.min(until, fetcher.readyAt(pld));
      }
    }
    const waitMs = Number.isFinite(until) ? Math.max(1, until - clock.now()) : fallbackMs || 50;
    const stop = new AbortController();
    const changed = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    const onAbort = () => stop.abort();
    this.o.signal?.addEventListener('abort', onAbort, { once: true });
    await Promise.race([changed, clock.sleep(Math.min(waitMs, 1000), stop.signal).catch(() => {})]);
    stop.abort();
    this.o.signal?.removeEventListener('abort', onAbort);
    this.wake = null;
  }

  private reportProgress(final = false): void {
    const progress = this.o.progress;
    if (!progress) return;
    const state = {
      done: this.stats.done,
      total: this.stats.done + this.frontier.queued + this.inflight.size,
      statements: this.stats.statementCount,
      extra: {
        round: this.round,
        plds: this.frontier.activePlds().length,
        errors: this.stats.topErrors() || '0',
      },
    };
    if (final) progress.finish(state);
    else progress.update(state);
  }
}

/**
 * Runs (or resumes) one breadth-first crawl: rounds over per-PLD queues, every finished fetch
 * journaled before it counts. Returns when the plan is exhausted or the signal stops it.
 */
export async function runCrawl(options: CrawlOptions): Promise<CrawlResult> {
  if (seedUrls(options.plan.seeds).length === 0) {
    throw new ObservatoryError('invalid_input', 'the crawl has no valid http(s) seed URL');
  }
  const journal = openJournal(options.dir, { logger: options.logger });
  return withCleanup(
    async () => {
      const run = new CrawlRun(options, journal);
      const replayed = run.replay();
      if (replayed.ended) return run.result(true);
      // a resumed crawl may follow a killed one at once: the killed process's last requests started
      // before now, so waiting one delay keeps every PLD's gap at the server (a Crawl-delay longer
      // than the delay is known again once the new process has read that host's robots.txt)
      if (replayed.lines > 0)
        await options.clock.sleep(options.config.delayMs, options.signal).catch(() => {});
      return run.result(await run.run());
    },
    () => journal.close(),
  );
}
