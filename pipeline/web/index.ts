/**
 * The web stage: polite, safe HTTP fetching for the crawler. One fetcher per crawl; every request
 * it sends (documents, redirect hops, retries, robots.txt, JSON-LD contexts) waits at its
 * politeness gate. Rules and defaults: docs/crawling.md.
 */
export { ACCEPT_ENCODING, ACCEPT_JSONLD, ACCEPT_RDF } from './accept.ts';
export { isBlockedAddress } from './address-guard.ts';
export { decodeContentCoding } from './content-coding.ts';
export type { ExchangeObserver, ExchangeRecord, RawResponse, Truncation } from './exchange-record.ts';
export { redirectLoopMessage, type UrlClaim } from './fetch-document.ts';
export type { Fetcher, FetcherOptions } from './fetcher.ts';
export { createFetcher } from './fetcher.ts';
export { alternateJsonLd, isJsonType } from './link-header.ts';
export type { PldStats } from './pld-stats.ts';
export type { GateObserver, Permit, PolitenessGate } from './politeness-gate.ts';
export { createPolitenessGate } from './politeness-gate.ts';
export { RETRIED_ERRORS, retryAfterMs, retryWaitsMs } from './retry.ts';
export type { RobotsAnswer, RobotsEntry } from './robots-cache.ts';
export type { RobotsPolicy } from './robots-rules.ts';
export { parseRobots } from './robots-rules.ts';
