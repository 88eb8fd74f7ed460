import {
  type ErrorCode,
  type FetchResult,
  MAX_URL_LENGTH,
  ObservatoryError,
  payLevelDomain,
  quoteInput,
  type RedirectHop,
  type Validators,
} from '../core/index.ts';
import { type Exchange, exchange, type WebContext } from './exchange.ts';
import { RETRIED_ERRORS, retryAfterMs, retryWaitMs } from './retry.ts';
import type { RobotsCache } from './robots-cache.ts';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Failures worth a second try within the same fetch (CrawlConfig.maxAttempts). */

function statusError(status: number): ErrorCode | null {
  if (status >= 200 && status < 300) return null;
  if (status === 429) return 'http_429';
  if (status >= 400 && status < 500) return 'http_4xx';
  if (status >= 500) return 'http_5xx';
  return null; // 1xx or a 3xx we do not follow (300, 304): kept as it is, the status column tells
}

/** The fetch so far, turned into a FetchResult when it ends. */
interface FetchSoFar {
  readonly url: string;
  readonly startedAt: number;
  readonly redirects: RedirectHop[];
  attempts: number;
  /** Whether the last request sent carried validators. */
  conditional: boolean;
}

function finish(
  ctx: WebContext,
  p: FetchSoFar,
  finalUrl: string,
  response: Exchange | null,
  error: ErrorCode | null,
  errorMessage: string | null,
  handedOver = false,
): FetchResult {
  return {
    url: p.url,
    finalUrl,
    status: response?.status ?? null,
    error,
    errorMessage,
    headers: response?.headers ?? {},
    body: response && !REDIRECTS.has(response.status) && response.failure === null ? response.body : null,
    startedAt: p.startedAt,
    durationMs: ctx.clock.now() - p.startedAt,
    redirects: p.redirects,
    attempts: p.attempts,
    handedOver,
    responseId: response?.id ?? null,
    conditional: response !== null && p.conditional,
  };
}

/** Why a fetch whose redirect leads to `url`, a URL it requested already, ends in redirect_loop. */
export function redirectLoopMessage(url: string): string {
  return `${url} is already on the redirect path`;
}

/**
 * Asked before each request of a document fetch (the URL asked for and every redirect target):
 * true when this fetch may request `url`, false when another fetch of the same crawl already did,
 * so that a final URL is downloaded once per crawl (docs/crawling.md).
 */
export type UrlClaim = (url: string) => boolean;

/** If-None-Match and If-Modified-Since from a previous observation's validators (RFC 9110, 13.1). */
function conditionalHeaders(validators: Validators): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

/**
 * Sends one hop's request, again while it fails in a way worth retrying (up to maxAttempts), holding
 * the PLD back as Retry-After (or a doubling backoff) asks. Returns the last response, or the failure.
 */
async function sendWithRetries(
  ctx: WebContext,
  p: FetchSoFar,
  url: URL,
  accept: string,
  signal?: AbortSignal,
  validators?: Validators,
): Promise<Exchange | ObservatoryError> {
  const pld = payLevelDomain(url.hostname);
  const headers = validators?.url === url.href ? conditionalHeaders(validators) : {};
  p.conditional = Object.keys(headers).length > 0;
  for (let attempt = 1; ; attempt++) {
    p.attempts++;
    let outcome: Exchange | ObservatoryError;
    try {
      outcome = await exchange(
        ctx,
        url,
        { accept, headers, maxBytes: ctx.config.maxBytes, overLimit: 'fail', robots: false },
        signal,
      );
    } catch (error) {
      if (!(error instanceof ObservatoryError)) throw error; // the caller aborted
      outcome = error;
    }
    const code =
      outcome instanceof ObservatoryError
        ? outcome.code
        : (outcome.failure?.code ?? statusError(outcome.status));
    if (code === null || !RETRIED_ERRORS.has(code) || attempt >= ctx.config.maxAttempts) return outcome;
    const now = ctx.clock.now();
    const asked =
      outcome instanceof ObservatoryError ? null : retryAfterMs(outcome.headers['retry-after'], now);
    ctx.gate.penalise(pld, now + retryWaitMs(attempt, ctx.gate.delayOf(pld), asked));
  }
}

/**
 * Fetches one URL the way the observatory must: robots.txt first, then the request, following
 * 301/302/303/307/308 up to config.maxRedirects with each hop checked again (robots.txt, address
 * guard, politeness of its own PLD) and recorded. Every failure is a FetchResult with an error
 * code; only an abort of `signal` rejects. When `claim` refuses a URL the fetch stops there,
 * before asking robots.txt or sending anything, and hands over: `finalUrl` is that URL, with
 * `handedOver` set and no status or body. With `validators`, the request for their URL (the
 * previous observation's final URL, wherever the redirects lead) carries If-None-Match and
 * If-Modified-Since; a 304 answer ends the fetch with status 304 and no body.
 */
export async function fetchWithRules(
  ctx: WebContext,
  robots: RobotsCache,
  url: string,
  accept: string,
  signal?: AbortSignal,
  claim?: UrlClaim,
  validators?: Validators,
): Promise<FetchResult> {
  const p: FetchSoFar = { url, startedAt: ctx.clock.now(), redirects: [], attempts: 0, conditional: false };
  const first = URL.parse(url);
  if (!first || !/^https?:$/.test(first.protocol) || first.hostname === '') {
    return finish(ctx, p, url, null, 'bad_url', `not an http(s) URL: ${quoteInput(url)}`);
  }
  if (first.href.length > MAX_URL_LENGTH) {
    return finish(
      ctx,
      p,
      url,
      null,
      'bad_url',
      `URL longer than ${MAX_URL_LENGTH} characters: ${quoteInput(url)}`,
    );
  }
  let current: URL = first;
  current.hash = '';
  const visited = new Set([current.href]);
  for (;;) {
    if (claim && !claim(current.href)) return finish(ctx, p, current.href, null, null, null, true);
    const verdict = await robots.check(current, signal);
    if (verdict !== null) {
      return finish(ctx, p, current.href, null, verdict.code, verdict.message);
    }
    const outcome = await sendWithRetries(ctx, p, current, accept, signal, validators);
    if (outcome instanceof ObservatoryError)
      return finish(ctx, p, current.href, null, outcome.code, outcome.message);
    if (outcome.failure !== null) {
      return finish(ctx, p, current.href, outcome, outcome.failure.code, outcome.failure.message);
    }
    if (!REDIRECTS.has(outcome.status)) {
      const error = statusError(outcome.status);
      return finish(ctx, p, current.href, outcome, error, error ? `HTTP ${outcome.status}` : null);
    }
    const location = outcome.headers.location;
    const next: URL | null = location === undefined ? null : URL.parse(location, current);
    if (
      !next ||
      !/^https?:$/.test(next.protocol) ||
      next.hostname === '' ||
      next.href.length > MAX_URL_LENGTH
    ) {
      const why =
        location === undefined
          ? 'no Location'
          : next && next.href.length > MAX_URL_LENGTH
            ? `a Location longer than ${MAX_URL_LENGTH} characters: ${quoteInput(location)}`
            : `bad Location ${quoteInput(location)}`;
      return finish(ctx, p, current.href, outcome, 'redirect_invalid', `${outcome.status} with ${why}`);
    }
    next.hash = '';
    p.redirects.push({ from: current.href, to: next.href, status: outcome.status, at: outcome.sentAt });
    if (visited.has(next.href)) {
      return finish(ctx, p, current.href, outcome, 'redirect_loop', redirectLoopMessage(next.href));
    }
    if (p.redirects.length > ctx.config.maxRedirects) {
      return finish(
        ctx,
        p,
        current.href,
        outcome,
        'redirect_limit',
        `more than ${ctx.config.maxRedirects} redirects`,
      );
    }
    visited.add(next.href);
    current = next;
  }
}
