import { type ErrorCode, ObservatoryError, payLevelDomain } from '../core/index.ts';
import { type Exchange, exchange, type WebContext } from './exchange.ts';
import { retryAfterMs } from './retry-after.ts';
import { ALLOW_ALL, parseRobots, type RobotsPolicy, robotsText } from './robots-rules.ts';

/** RFC 9309 2.3.1.2: follow at least five consecutive redirects, across authorities too. */
const ROBOTS_MAX_REDIRECTS = 5;
const ROBOTS_ACCEPT = 'text/plain, */*;q=0.1';

/** Answers "may we fetch this URL?" from robots.txt files fetched (politely) and cached per authority. */
export interface RobotsCache {
  /** null when allowed; `robots` when disallowed; `robots_unavailable` while its robots.txt cannot be read. */
  check(url: URL, signal?: AbortSignal): Promise<ErrorCode | null>;
}

interface Entry {
  /** null: robots.txt unreachable (5xx, 429, network), so everything is disallowed for now. */
  readonly policy: RobotsPolicy | null;
  readonly expiresAt: number;
}

/** What the robots.txt of an authority says, after following its redirects; null when unreachable. */
async function loadPolicy(ctx: WebContext, origin: string): Promise<RobotsPolicy | null> {
  let url = new URL('/robots.txt', origin);
  const seen = new Set([url.href]);
  for (let hop = 0; ; hop++) {
    let response: Exchange;
    try {
      response = await exchange(ctx, url, {
        accept: ROBOTS_ACCEPT,
        maxBytes: ctx.config.robotsMaxBytes,
        overLimit: 'truncate',
        robots: true,
      });
    } catch (error) {
      if (error instanceof ObservatoryError) return null;
      throw error;
    }
    const { status, headers } = response;
    if (status >= 200 && status < 300) {
      return parseRobots(robotsText(response.body, response.truncated), origin, ctx.config.productToken);
    }
    if ([301, 302, 303, 307, 308].includes(status)) {
      const next = URL.parse(headers.location ?? '', url);
      // RFC 9309 2.3.1.2: past five redirects (or a broken one) the file MAY be taken as unavailable: allow all
      if (!next || !/^https?:$/.test(next.protocol) || seen.has(next.href) || hop >= ROBOTS_MAX_REDIRECTS) {
        return ALLOW_ALL;
      }
      seen.add(next.href);
      url = next;
      continue;
    }
    if (status === 429 || status >= 500) {
      const wait = retryAfterMs(headers['retry-after'], ctx.clock.now());
      if (wait !== null) ctx.gate.penalise(payLevelDomain(url.hostname), ctx.clock.now() + wait);
      return null;
    }
    if (status >= 400) return ALLOW_ALL;
    return null; // 1xx or an odd 3xx: we cannot tell what the file says
  }
}

/**
 * The robots.txt cache of one fetcher. Entries live config.robotsTtlMs (unreachable ones only
 * config.robotsUnavailableTtlMs, so that the authority is tried again soon); concurrent questions
 * about one authority share one fetch. A Crawl-delay feeds the politeness gate of the authority's PLD.
 */
export function createRobotsCache(ctx: WebContext): RobotsCache {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<Entry>>();

  const load = async (origin: string, host: string): Promise<Entry> => {
    const policy = await loadPolicy(ctx, origin);
    const ttl = policy ? ctx.config.robotsTtlMs : ctx.config.robotsUnavailableTtlMs;
    if (policy?.crawlDelayMs != null) ctx.gate.setCrawlDelay(payLevelDomain(host), policy.crawlDelayMs);
    const entry = { policy, expiresAt: ctx.clock.now() + ttl };
    entries.set(origin, entry);
    return entry;
  };

  return {
    async check(url, signal) {
      const origin = url.origin;
      let entry = entries.get(origin);
      if (!entry || entry.expiresAt <= ctx.clock.now()) {
        let pending = loading.get(origin);
        if (!pending) {
          // not tied to one caller's signal: others may be waiting for the same file
          pending = load(origin, url.hostname).finally(() => loading.delete(origin));
          loading.set(origin, pending);
        }
        entry = await pending;
        signal?.throwIfAborted();
      }
      if (!entry.policy) return 'robots_unavailable';
      return entry.policy.isAllowed(url) ? null : 'robots';
    },
  };
}
