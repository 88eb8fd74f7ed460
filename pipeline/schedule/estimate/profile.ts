/**
 * What the estimator knows of a pay-level domain, learnt from earlier crawls: one sample per
 * document fetched there, stripped of the politeness waits of the crawl it came from, so that
 * it can be replayed under another delay, Crawl-delay cap or retry policy.
 */
import { retryWaitsMs } from '../../web/index.ts';

/** One document fetch as history saw it, with the waits taken out (requestMs of a fetch that sent nothing: the robots.txt check). */
export interface FetchSample {
  /** Requests sent for the document itself (1 + redirect hops + retries); 0 when none was (robots, unreachable host). */
  readonly requests: number;
  /** Of those, retries after a 5xx, 429, reset or timeout. */
  readonly retries: number;
  /** Retry-After the server asked for (ms), null when it named none. */
  readonly retryAfterMs: number | null;
  /** Time on the wire per request: request sent to body read (ms). */
  readonly requestMs: number;
  /** The requests ran into the crawl's timeout: they cost the timeout, whatever the server's speed. */
  readonly timedOut: boolean;
}

/** One PLD's history. */
export interface PldProfile {
  readonly pld: string;
  readonly samples: readonly FetchSample[];
  /** A robots.txt Crawl-delay seen in history (ms, as honoured then), null when none showed. */
  readonly crawlDelayMs: number | null;
  /** Mean duration_ms as recorded, waits included: the baseline's download time c. */
  readonly meanDurationMs: number;
}

/**
 * Everything the estimator learnt from the history. A PLD it never saw is taken to behave like a
 * known PLD drawn at random (its speed, redirects and Crawl-delay together), or like
 * DEFAULT_PROFILE when there is no history at all.
 */
export interface HistoryStats {
  readonly plds: ReadonlyMap<string, PldProfile>;
  /** The latest sample of each URL seen: its redirects and failures tend to recur. */
  readonly urls: ReadonlyMap<string, FetchSample>;
  /** Our crawler's own processing per document on its event loop (ms; calibrate.ts). */
  readonly cpuMs: number;
  /** Snapshots read. */
  readonly snapshots: readonly string[];
}

/** With no history at all: one request of 200 ms per document, no Crawl-delay. */
export const DEFAULT_SAMPLE: FetchSample = Object.freeze({
  requests: 1,
  retries: 0,
  retryAfterMs: null,
  requestMs: 200,
  timedOut: false,
});

/** What a PLD looks like when there is no history at all. */
export const DEFAULT_PROFILE: PldProfile = Object.freeze({
  pld: '*',
  samples: Object.freeze([DEFAULT_SAMPLE]),
  crawlDelayMs: null,
  meanDurationMs: DEFAULT_SAMPLE.requestMs,
});

/** Statistics from no history. */
export function emptyHistory(): HistoryStats {
  return {
    plds: new Map(),
    urls: new Map(),
    cpuMs: 0,
    snapshots: [],
  };
}

/** The crawler settings that decide how long a document holds its PLD. */
export interface Politeness {
  readonly delayMs: number;
  readonly crawlDelayCapMs: number;
  readonly timeoutMs: number;
}

/** The delay the politeness gate will use for a PLD: ours, or its Crawl-delay up to the cap. */
export function effectiveDelay(
  profile: PldProfile | undefined,
  p: Pick<Politeness, 'delayMs' | 'crawlDelayCapMs'>,
): number {
  const crawlDelay = profile?.crawlDelayMs ?? 0;
  return Math.max(p.delayMs, Math.min(crawlDelay, p.crawlDelayCapMs));
}

/**
 * How long one document holds a fetch slot under politeness `delayMs` (see docs/estimation.md):
 * every request on the wire (the timeout for a request that timed out), the PLD's delay between
 * consecutive requests of the fetch (the gate counts it from the moment the previous one was
 * answered), and before each retry the wait the fetch holds the PLD back (pipeline/web/retry.ts:
 * Retry-After, else a doubling backoff; capped like a Crawl-delay, never shorter than the delay).
 */
export function fetchTime(sample: FetchSample, delayMs: number, p: Omit<Politeness, 'delayMs'>): number {
  if (sample.requests === 0) return 0;
  const plainGaps = sample.requests - 1 - sample.retries;
  const wire = sample.timedOut ? p.timeoutMs : sample.requestMs;
  return (
    sample.requests * wire +
    plainGaps * delayMs +
    retryWaitsMs(sample.retries, delayMs, sample.retryAfterMs, p.crawlDelayCapMs)
  );
}
