import { Agent } from 'undici';
import {
  type Clock,
  type CrawlConfig,
  type FetchResult,
  type MemoryLease,
  systemClock,
  type Validators,
} from '../core/index.ts';
import { ACCEPT_JSONLD, ACCEPT_RDF } from './accept.ts';
import type { WebContext } from './exchange.ts';
import type { ExchangeObserver } from './exchange-record.ts';
import { fetchWithRules, type UrlClaim } from './fetch-document.ts';
import { pinnedConnector } from './pinned-connector.ts';
import { type PldStats, pldStatsObserver } from './pld-stats.ts';
import { createPolitenessGate, type GateObserver, type PolitenessGate } from './politeness-gate.ts';
import { createRobotsCache, type RobotsCache } from './robots-cache.ts';

/** The crawler's one door to the Web: polite, robots-aware, guarded fetching for one crawl. */
export interface Fetcher {
  /**
   * Fetches a document with RDF content negotiation (see fetchWithRules for the rules and `claim`);
   * its body is charged to `lease`, the document's share of the crawl's memory budget, as it arrives.
   */
  fetchDocument(
    url: string,
    signal?: AbortSignal,
    claim?: UrlClaim,
    validators?: Validators,
    lease?: MemoryLease,
  ): Promise<FetchResult>;
  /** Fetches a JSON-LD context (Accept: application/ld+json) under the same rules and `claim`, for a context loader. */
  fetchContext(url: string, signal?: AbortSignal, claim?: UrlClaim): Promise<FetchResult>;
  /** The politeness gate every request of this fetcher waits at; ask it `readyAt(pld)` to schedule. */
  readonly gate: PolitenessGate;
  /** The robots.txt answers cached so far, per PLD, and taking another fetcher's (a distributed lease). */
  readonly robots: Pick<RobotsCache, 'entriesOf' | 'adopt'>;
  /** Statistics per PLD so far (live objects: copy them to keep a snapshot). */
  stats(): ReadonlyMap<string, Readonly<PldStats>>;
  /** Closes the connections; the fetcher is unusable afterwards. */
  close(): Promise<void>;
}

/** Who else is told of the fetcher's exchanges (an archive, a test). */
export interface FetcherOptions {
  readonly observers?: readonly ExchangeObserver[];
  /** Told of every request's moments at the politeness gate (an instrument, see GateObserver). */
  readonly gateObserver?: GateObserver;
}

/** A fetcher for one crawl from its validated config; the clock paces politeness and timeouts. */
export function createFetcher(
  config: CrawlConfig,
  clock: Clock = systemClock,
  options: FetcherOptions = {},
): Fetcher {
  const dispatcher = new Agent({
    connect: pinnedConnector(config),
    connections: config.perPld,
    headersTimeout: config.timeoutMs,
    bodyTimeout: config.timeoutMs,
  });
  const stats = pldStatsObserver();
  const observers = [stats, ...(options.observers ?? [])];
  let exchanges = 0;
  const ctx: WebContext = {
    config,
    clock,
    gate: createPolitenessGate(config, clock, options.gateObserver),
    dispatcher,
    observer: {
      exchanged(record) {
        for (const observer of observers) observer.exchanged(record);
      },
    },
    nextId: () => ++exchanges,
  };
  const robots = createRobotsCache(ctx);
  return {
    fetchDocument: (url, signal, claim, validators, lease) =>
      fetchWithRules(lease ? { ...ctx, lease } : ctx, robots, url, ACCEPT_RDF, signal, claim, validators),
    fetchContext: (url, signal, claim) => fetchWithRules(ctx, robots, url, ACCEPT_JSONLD, signal, claim),
    gate: ctx.gate,
    robots,
    stats: () => stats.table,
    close: () => dispatcher.close(),
  };
}
