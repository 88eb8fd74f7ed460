import { type ErrorCode, ObservatoryError, payLevelDomain, TLS_ERROR_CODES } from '../core/index.ts';
import { type Exchange, exchange, type WebContext } from './exchange.ts';
import { retryAfterMs } from './retry.ts';
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
  /** The answers cached for the authorities of `pld`, to hand to another fetcher (a distributed lease). */
  entriesOf(pld: string): RobotsEntry[];
  /** Takes answers another fetcher cached, where this one has none as fresh; they expire as they would there. */
  adopt(entries: readonly RobotsEntry[]): void;
}

/**
 * An authority's robots.txt as read: its text (null: none to obey, everything allowed), or why it
 * cannot be read. Plain data, so that it can move to another fetcher.
 */
export type RobotsAnswer = { readonly text: string | null } | Unreachable;

/** A cached answer: the authority, what its robots.txt said, and until when it holds (clock time). */
export interface RobotsEntry {
  readonly origin: string;
  readonly answer: RobotsAnswer;
  readonly expiresAt: number;
}

/**
 * robots.txt unreachable: the whole authority is disallowed for now (`robots_unavailable`), or,
 * when the host itself cannot be fetched at all (no DNS, blocked address, TLS, nothing listening), that code: the
 * document would fail the same way and the code says why.
 */
type Unreachable = { readonly code: ErrorCode; readonly message: string };

const HOST_FAILURES = new Set<ErrorCode>(['dns', 'blocked_address', ...TLS_ERROR_CODES, 'refused']);

interface Entry {
  readonly answer: RobotsAnswer;
  readonly policy: RobotsPolicy | Unreachable;
  readonly expiresAt: number;
}

function unavailable(message: string): Unreachable {
  return { code: 'robots_unavailable', message };
}

/** What the robots.txt of an authority says, after following its redirects. */
async function loadAnswer(ctx: WebContext, origin: string): Promise<RobotsAnswer> {
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
      return { text: robotsText(response.body, response.truncated) };
    }
    if ([301, 302, 303, 307, 308].includes(status)) {
      const next = URL.parse(headers.location ?? '', url);
      // RFC 9309 2.3.1.2: past five redirects (or a broken one) the file MAY be taken as unavailable: allow all
      if (!next || !/^https?:$/.test(next.protocol) || seen.has(next.href) || hop >= ROBOTS_MAX_REDIRECTS) {
        return { text: null };
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
    if (status >= 400) return { text: null };
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

  /** The authorities cached per PLD: entriesOf is asked after every document of a distributed worker. */
  const originsOf = new Map<string, Set<string>>();

  const remember = (origin: string, answer: RobotsAnswer, expiresAt: number): Entry => {
    const pld = payLevelDomain(new URL(origin).hostname);
    const policy =
      'code' in answer
        ? answer
        : answer.text === null
          ? ALLOW_ALL
          : parseRobots(answer.text, origin, ctx.config.productToken);
    if ('crawlDelayMs' in policy && policy.crawlDelayMs !== null)
      ctx.gate.setCrawlDelay(pld, policy.crawlDelayMs);
    const entry = { answer, policy, expiresAt };
    entries.set(origin, entry);
    originsOf.set(pld, (originsOf.get(pld) ?? new Set()).add(origin));
    return entry;
  };

  const load = async (origin: string): Promise<Entry> => {
    const answer = await loadAnswer(ctx, origin);
    const ttl = 'code' in answer ? ctx.config.robotsUnavailableTtlMs : ctx.config.robotsTtlMs;
    return remember(origin, answer, ctx.clock.now() + ttl);
  };

  return {
    async check(url, signal) {
      const origin = url.origin;
      let entry = entries.get(origin);
      if (!entry || entry.expiresAt <= ctx.clock.now()) {
        let pending = loading.get(origin);
        if (!pending) {
          // not tied to one caller's signal: others may be waiting for the same file
          pending = load(origin).finally(() => loading.delete(origin));
          loading.set(origin, pending);
        }
        entry = await pending;
        signal?.throwIfAborted();
      }
      const { policy } = entry;
      if ('code' in policy) return policy;
      return policy.isAllowed(url) ? null : { code: 'robots', message: `disallowed by ${origin}/robots.txt` };
    },
    entriesOf(pld) {
      return [...(originsOf.get(pld) ?? [])].map((origin) => {
        const { answer, expiresAt } = entries.get(origin)!;
        return { origin, answer, expiresAt };
      });
    },
    adopt(given) {
      for (const { origin, answer, expiresAt } of given) {
        const mine = entries.get(origin);
        if (loading.has(origin) || expiresAt <= ctx.clock.now() || (mine && mine.expiresAt >= expiresAt))
          continue;
        remember(origin, answer, expiresAt);
      }
    },
  };
}
