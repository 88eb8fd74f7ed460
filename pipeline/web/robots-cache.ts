import { type ErrorCode, ObservatoryError, payLevelDomain, TLS_ERROR_CODES } from '../core/index.ts';
import { type Exchange, exchange, type WebContext } from './exchange.ts';
import { retryAfterMs } from './retry-after.ts';
import { ALLOW_ALL, parseRobots, type RobotsPolicy, robotsText } from './robots-rules.ts';

/** RFC 9309 2.3.1.2: follow at least five consecutive redirects, across authorities too. */
const ROBOTS_MAX_REDIRECTS = 5;
const ROBOTS_ACCEPT = 'text/plain, */*;q=0.1';

/** Answers "may we fetch this URL?" from robots.txt files fetched (politely) and cached per authority. */
export interface RobotsCache {
  /**
   * null when allowed; else why not: `robots` (disallowed), `robots_unavailable` (robots.txt
   * cannot be read for now), or `dns` / `blocked_address` / `tls` / `refused` when the host cannot be fetched.
   */
  check(url: URL, signal?: AbortSignal): Promise<Unreachable | null>;
}

/**
 * robots.txt unreachable: the whole authority is disallowed for now (`robots_unavailable`), or,
 * when the host itself cannot be fetched at all (no DNS, blocked address, TLS, nothing listening), that code: the
 * document would fail the same way and the code says why.
 */
type Unreachable = { readonly code: ErrorCode; readonly message: string };

const HOST_FAILURES = new Set<ErrorCode>(['dns', 'blocked_address', ...TLS_ERROR_CODES, 'refused']);

interface Entry {
  readonly policy: RobotsPolicy | Unreachable;
  readonly expiresAt: number;
}

function unavailable(message: string): Unreachable {
  return { code: 'robots_unavailable', message };
}

/** What the robots.txt of an authority says, after following its redirects. */
async function loadPolicy(ctx: WebContext, origin: string): Promise<RobotsPolicy | Unreachable> {
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
      if (!(error instanceof ObservatoryError)) throw error;
      const code = HOST_FAILURES.has(error.code) ? error.code : 'robots_unavailable';
      return { code, message: `${url.href}: ${error.message}` };
    }
    if (response.failure !== null) {
      const { code, message } = response.failure;
      return {
        code: HOST_FAILURES.has(code) ? code : 'robots_unavailable',
        message: `${url.href}: ${message}`,
      };
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
      return unavailable(`${url.href} answered ${status}`);
    }
    if (status >= 400) return ALLOW_ALL;
    return unavailable(`${url.href} answered ${status}`); // 1xx or an odd 3xx: we cannot tell what it says
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
    const ttl = 'code' in policy ? ctx.config.robotsUnavailableTtlMs : ctx.config.robotsTtlMs;
    if ('crawlDelayMs' in policy && policy.crawlDelayMs !== null)
      ctx.gate.setCrawlDelay(payLevelDomain(host), policy.crawlDelayMs);
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
      const { policy } = entry;
      if ('code' in policy) return policy;
      return policy.isAllowed(url) ? null : { code: 'robots', message: `disallowed by ${origin}/robots.txt` };
    },
  };
}
