import type pg from 'pg';
import { type Clock, type CrawlConfig, ObservatoryError, urlPld } from '../core/index.ts';
import { type ContextLoader, contextLimitError, crawlContexts } from '../rdf/index.ts';
import type { Fetcher } from '../web/index.ts';
import { type ContextMove, fetchContextHops } from './context-hops.ts';
import {
  answerContext,
  askContext,
  askedContexts,
  type ContextAnswer,
  contextState,
  isStorageRefusal,
  moveContext,
} from './store.ts';

/** A PLD lease as context fetches use it. */
export interface ContextLease {
  readonly lease: { readonly pld: string };
  /** Stops the requests under the lease (lost, run out, the worker stopping). */
  readonly stop: AbortController;
  /** Context fetches in flight under the lease: it is given back only once they ended. */
  readonly requests: Set<Promise<unknown>>;
}

/** The worker's leases, as the shared contexts need them. */
export interface ContextLeases {
  /** The lease this worker holds on `pld` and may still send requests under, if any. */
  held(pld: string): ContextLease | undefined;
  /** The PLDs this worker holds. */
  plds(): string[];
  /** Leases `pld` for this worker if nobody holds it, ready for requests; null when someone does. */
  leaseBriefly(pld: string): Promise<ContextLease | null>;
  /** Gives back a lease taken with leaseBriefly, with its politeness state, once its requests ended. */
  releaseBriefly(lease: ContextLease): Promise<void>;
}

export interface SharedContextsOptions {
  readonly pool: pg.Pool;
  readonly crawl: string;
  readonly config: CrawlConfig;
  readonly web: Pick<Fetcher, 'fetchContext'>;
  readonly leases: ContextLeases;
  readonly clock: Clock;
  readonly pollMs: number;
  /** Aborted when the worker leaves the crawl: waits for answers end there. */
  readonly signal: AbortSignal;
  /** Called when the coordinator failed (not the context): the worker stops crawling. */
  readonly fail: (error: unknown) => void;
}

/**
 * A worker's remote JSON-LD contexts, under the crawl's politeness like every other request: a
 * context is fetched only under its PLD's lease, by whoever holds it, and its answer stored in
 * PostgreSQL for every worker (so it is fetched once per crawl, as in one process). A worker that
 * needs a context of a PLD it does not hold asks for it (a context row without an answer) and
 * waits: the PLD's holder fetches it between its polls, or, when nobody holds the PLD, the worker
 * leases it itself for the fetch and gives it back. A context whose redirect or Link alternate
 * leads into another PLD is moved there (its row names that PLD and where its fetch goes on) and
 * goes on under that PLD's lease the same way. Serving asked contexts does not wait on the
 * holder's own documents, nor a context's fetch on another PLD, so two workers that each need a
 * context of the other's PLD both get it. The crawl's limit of contexts is counted in PostgreSQL.
 */
export class SharedContexts {
  /** The loader of every document this worker parses in the crawl (cached per worker, limited per crawl). */
  readonly load: ContextLoader;
  /** Context fetches of this worker in flight, by URL (one at a time per URL). */
  private readonly fetching = new Map<string, Promise<ContextAnswer | null>>();
  /** Answers being waited for, so that leaving the crawl waits for their brief leases to be given back. */
  private readonly waits = new Set<Promise<unknown>>();
  private readonly o: SharedContextsOptions;

  constructor(o: SharedContextsOptions) {
    this.o = o;
    // the limit is the crawl's, counted by askContext: this cache only saves asking again
    this.load = crawlContexts(Number.POSITIVE_INFINITY, (url) => {
      const answer = this.answer(url);
      const settled = answer.then(
        () => {},
        () => {},
      );
      this.waits.add(settled);
      settled.then(() => this.waits.delete(settled));
      return answer.then((got) => textOf(url, got, o.config.maxContextsPerCrawl));
    });
  }

  /** Fetches the contexts other workers asked of the PLDs this worker holds (or moved there). */
  async serveAsked(): Promise<void> {
    const plds = this.o.leases.plds();
    if (plds.length === 0) return;
    for (const { url, pld } of await askedContexts(this.o.pool, this.o.crawl, plds)) {
      const lease = this.o.leases.held(pld);
      if (lease) this.fetchUnder(lease, url).catch(this.o.fail);
    }
  }

  /** Resolves once every wait for an answer ended (after the signal, they end at once). */
  async settled(): Promise<void> {
    await Promise.all(this.waits);
  }

  /**
   * The context's answer for this crawl: stored already, fetched under a lease, or waited for;
   * null when the crawl's limit of contexts refuses it.
   */
  private async answer(url: string): Promise<ContextAnswer | null> {
    const { pool, crawl, config, leases, signal } = this.o;
    try {
      if (!(await askContext(pool, crawl, url, urlPld(url), config.delayMs, config.maxContextsPerCrawl)))
        return null;
      for (;;) {
        signal.throwIfAborted();
        const row = await contextState(pool, crawl, url);
        if (row.answer) return row.answer;
        const held = leases.held(row.pld);
        const lease = held ?? (await leases.leaseBriefly(row.pld));
        if (lease) {
          const fetched = await this.fetchUnder(lease, url).finally(() =>
            held ? undefined : leases.releaseBriefly(lease),
          );
          if (fetched) return fetched;
        } else {
          await this.o.clock.sleep(this.o.pollMs, signal);
        }
      }
    } catch (error) {
      // a value PostgreSQL cannot hold fails the document that named the context, not the worker
      if (isStorageRefusal(error)) throw refusedContext(url, error);
      if (!signal.aborted) this.o.fail(error);
      throw error;
    }
  }

  /**
   * Fetches `url` under `lease` from where its row says, and stores its answer or where it moved;
   * null when it moved to another PLD or the lease stopped first.
   */
  private fetchUnder(lease: ContextLease, url: string): Promise<ContextAnswer | null> {
    let fetching = this.fetching.get(url);
    if (!fetching) {
      const started = this.fetchAndStore(lease, url);
      fetching = started;
      this.fetching.set(url, started);
      lease.requests.add(started);
      const done = () => {
        this.fetching.delete(url);
        lease.requests.delete(started);
      };
      started.then(done, done);
    }
    return fetching;
  }

  private async fetchAndStore(lease: ContextLease, url: string): Promise<ContextAnswer | null> {
    const { pool, crawl, config, web } = this.o;
    const { pld } = lease.lease;
    const { signal } = lease.stop;
    // read under the lease: what was read before it may have been answered (or moved on) by its previous holder
    const row = await contextState(pool, crawl, url);
    if (row.answer) return row.answer;
    if (row.pld !== pld) return null;
    let got: ContextAnswer | ContextMove;
    try {
      const at = row.moved ?? { path: [url], alternate: false };
      got = await fetchContextHops(web, url, at, pld, config.maxRedirects, signal);
    } catch (error) {
      if (signal.aborted) return null;
      throw error;
    }
    if ('path' in got) {
      await moveContext(pool, crawl, url, pld, got, config.delayMs);
      return null;
    }
    try {
      await answerContext(pool, crawl, url, pld, got);
    } catch (error) {
      if (!isStorageRefusal(error)) throw error;
      got = { text: null, error: refusedContext(url, error).message };
      await answerContext(pool, crawl, url, pld, got);
    }
    return got;
  }
}

/** The `parse` error of a context whose row or answer PostgreSQL refused (store.ts isStorageRefusal). */
function refusedContext(url: string, error: unknown): ObservatoryError {
  return new ObservatoryError(
    'parse',
    `JSON-LD context ${url}: the coordinator could not store it: ${(error as Error).message}`,
  );
}

/**
 * The text a context loader gives for an answer, or the `parse` error the one-process loader
 * throws; no answer is the crawl's limit of contexts refusing it.
 */
function textOf(url: string, answer: ContextAnswer | null, maxContextsPerCrawl: number): string {
  if (answer === null) throw contextLimitError(url, maxContextsPerCrawl);
  if (answer.error !== null) throw new ObservatoryError('parse', answer.error);
  return answer.text;
}
