import type { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';
import {
  type Clock,
  type CrawlConfig,
  type ErrorCode,
  type MemoryLease,
  type ObservatoryError,
  payLevelDomain,
} from '../core/index.ts';
import { ACCEPT_ENCODING } from './accept.ts';
import { decodeContentCoding, type OnDecoded, type OverLimit } from './content-coding.ts';
import { startDeadline } from './deadline.ts';
import type { ExchangeObserver, Truncation } from './exchange-record.ts';
import { toObservatoryError } from './network-error.ts';
import type { PolitenessGate } from './politeness-gate.ts';
import { newCapture, tappedDispatcher, type WireCapture } from './wire-tap.ts';

/** What every request needs from the fetcher that owns it. */
export interface WebContext {
  readonly config: CrawlConfig;
  readonly clock: Clock;
  readonly gate: PolitenessGate;
  readonly dispatcher: Dispatcher;
  /** Told of every exchange once it is over (see ExchangeRecord). */
  readonly observer: ExchangeObserver;
  /** The id of the next exchange. */
  nextId(): number;
  /**
   * The share of the crawl's memory budget the document being fetched holds: its body is charged to
   * it as it arrives and read no further while the budget has no room (absent: not counted, as for
   * robots.txt and JSON-LD contexts).
   */
  readonly lease?: MemoryLease;
}

/** How to send one request and what to do with its body. */
export interface ExchangeOptions {
  readonly accept: string;
  /** Request headers besides the fixed ones (the validators of a conditional request). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly maxBytes: number;
  readonly overLimit: OverLimit;
  /** Counted apart in the statistics. */
  readonly robots: boolean;
}

/** One HTTP response: status, lower-cased headers, decoded body (empty for redirects). */
export interface Exchange {
  /** The id its ExchangeRecord carries. */
  readonly id: number;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly truncated: boolean;
  /** Clock time the request was sent (after the politeness wait). */
  readonly sentAt: number;
  /**
   * Set when the body failed after the headers arrived (too large, undecodable, cut, stalled): the
   * status and headers are still what the server sent, so the record keeps them; the body is empty.
   */
  readonly failure: ObservatoryError | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Why the body kept on the wire is incomplete, if it is. */
function truncationOf(capture: WireCapture, cutAtLimit: boolean, error: ErrorCode | null): Truncation | null {
  if (cutAtLimit || capture.overflow || error === 'too_large') return 'length';
  if (capture.complete) return null;
  if (error === 'timeout') return 'time';
  return error === 'reset' ? 'disconnect' : 'unspecified';
}

/**
 * The most bytes a body can bring, for the memory budget's claim: its Content-Length when that is
 * what arrives (no content coding, no chunked transfer coding that would override it), else the limit.
 */
function bodyBytesAtMost(headers: Readonly<Record<string, string>>, maxBytes: number): number {
  const coding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const length = Number(headers['content-length']);
  if (coding !== 'identity' || headers['transfer-encoding'] !== undefined) return maxBytes;
  return Number.isInteger(length) && length >= 0 ? Math.min(length, maxBytes) : maxBytes;
}

/**
 * Charges the bytes decoded so far to `lease`, waiting while the budget has no room for them:
 * reading stops meanwhile (backpressure), and `excluding` keeps that wait out of the fetch's time.
 */
function chargeTo(
  lease: MemoryLease,
  excluding: <T>(wait: () => Promise<T>) => Promise<T>,
  signal: AbortSignal | undefined,
): OnDecoded {
  return async (bytes) => {
    if (!lease.tryCharge(bytes)) await excluding(() => lease.charge(bytes, signal));
  };
}

/** What went wrong in an exchange: our deadline, or the network; an abort by the caller rethrows its reason. */
function failureOf(
  thrown: unknown,
  deadline: AbortSignal,
  signal: AbortSignal | undefined,
): ObservatoryError {
  if (signal?.aborted) throw signal.reason;
  return deadline.aborted ? (deadline.reason as ObservatoryError) : toObservatoryError(thrown);
}

/**
 * Sends one GET and reads its response, the only place a request leaves the fetcher: it waits at
 * the politeness gate for the URL's PLD first and holds the permit until the body is read. The
 * whole exchange (connect, headers, body) is bounded by config.timeoutMs, not counting the time
 * its body waits for the memory budget (ctx.lease). Network failures throw
 * an ObservatoryError; every HTTP status is returned (with `failure` set when its body failed). An abort of `signal` rethrows its reason.
 */
export async function exchange(
  ctx: WebContext,
  url: URL,
  options: ExchangeOptions,
  signal?: AbortSignal,
): Promise<Exchange> {
  const { config, clock } = ctx;
  const pld = payLevelDomain(url.hostname);
  // whatever an earlier answer of the same document was charged, it is not kept (nor waited on)
  ctx.lease?.drop();
  const waitStart = clock.now();
  const permit = await ctx.gate.acquire(pld, signal);
  const sentAt = clock.now();
  const deadline = startDeadline(clock, config.timeoutMs);
  const abort = signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
  const id = ctx.nextId();
  const capture = newCapture();
  let bytes = 0;
  let cutAtLimit = false;
  let error: ErrorCode | null = null;
  try {
    const response = await request(url, {
      dispatcher: tappedDispatcher(ctx.dispatcher, capture, options.maxBytes),
      method: 'GET',
      signal: abort,
      headers: {
        'user-agent': config.userAgent,
        accept: options.accept,
        'accept-encoding': ACCEPT_ENCODING,
        ...options.headers,
      },
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    });
    permit.confirm();
    const status = response.statusCode;
    const headers = flatHeaders(response.headers);
    if (REDIRECTS.has(status)) {
      await response.body.dump({ limit: 64 * 1024, signal: abort }).catch(() => {});
      return { id, status, headers, body: Buffer.alloc(0), truncated: false, sentAt, failure: null };
    }
    try {
      ctx.lease?.expect(headers['content-type'] ?? null, bodyBytesAtMost(headers, options.maxBytes));
      const decoded = await decodeContentCoding(
        response.body as unknown as Readable,
        headers['content-encoding'],
        options.maxBytes,
        options.overLimit,
        abort,
        ctx.lease && chargeTo(ctx.lease, deadline.excluding, signal),
      );
      bytes = decoded.body.length;
      cutAtLimit = decoded.truncated;
      return { id, status, headers, body: decoded.body, truncated: decoded.truncated, sentAt, failure: null };
    } catch (thrown) {
      const failure = failureOf(thrown, deadline.signal, signal);
      error = failure.code;
      return { id, status, headers, body: Buffer.alloc(0), truncated: false, sentAt, failure };
    }
  } catch (thrown) {
    const failure = failureOf(thrown, deadline.signal, signal);
    error = failure.code;
    throw failure;
  } finally {
    deadline.clear();
    permit.release();
    ctx.observer.exchanged({
      id,
      url: url.href,
      pld,
      robots: options.robots,
      sentAt,
      waitMs: sentAt - waitStart,
      serviceMs: clock.now() - sentAt,
      requestHead: capture.requestHead,
      remoteAddress: capture.remoteAddress,
      response:
        capture.status === null
          ? null
          : {
              status: capture.status,
              statusText: capture.statusText,
              headers: capture.headers,
              body: capture.body,
              bodyBytes: capture.bodyBytes,
              truncated: truncationOf(capture, cutAtLimit, error),
            },
      decodedBytes: bytes,
      error,
    });
  }
}
