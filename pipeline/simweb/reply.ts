/**
 * What the simulated Web answers to one request, as data: status, headers, body and how the
 * bytes travel. The server sends it; the ground truth reads the same value, so the two agree.
 */
import type { ErrorCode, RdfFormat } from '../core/index.ts';

/** How the answer travels. `hang`: nothing ever; `trickle`: a few bytes at a time; `reset-*`: the connection is destroyed. */
export type Transport =
  | 'normal'
  | 'hang'
  | 'hang-after-headers'
  | 'trickle'
  | 'trickle-forever'
  | 'reset-before-response'
  | 'reset-mid-body';

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body, built only when sent (the ground truth never builds it). */
  readonly body: () => Buffer;
  readonly transport: Transport;
  /** Whether the server may apply a Content-Encoding the client accepts. */
  readonly compress: boolean;
  /** Extra wait before answering, in milliseconds, not scaled by latencyScale. */
  readonly delayMs: number;
  /** What a correct crawler gets from the body: RDF with an exact statement count, or an error. */
  readonly outcome: Outcome;
}

export interface Outcome {
  readonly format: RdfFormat | null;
  /** Exact statement count when the body is RDF; null when unknown (a syntax error part way). */
  readonly statements: number | null;
  readonly error: ErrorCode | null;
}

const EMPTY = Buffer.alloc(0);

/** The error code a crawler records for an HTTP status. */
export function statusError(status: number): ErrorCode | null {
  if (status === 429) return 'http_429';
  if (status >= 500) return 'http_5xx';
  if (status >= 400) return 'http_4xx';
  return null;
}

/** A body-less (or short text) answer with a status. */
export function statusReply(status: number, headers: Record<string, string> = {}, text = ''): Reply {
  const body = text ? Buffer.from(text) : EMPTY;
  return {
    status,
    headers: text ? { 'content-type': 'text/plain; charset=utf-8', ...headers } : headers,
    body: () => body,
    transport: 'normal',
    compress: false,
    delayMs: 0,
    outcome: { format: null, statements: null, error: statusError(status) },
  };
}

/** A redirect to `location` (absolute or relative, as given), percent-encoded as HTTP headers must be. */
export function redirectReply(status: number, location: string): Reply {
  const encoded = /^https?:/.test(location) ? new URL(location).href : encodeURI(location);
  return statusReply(status, { location: encoded }, `Moved to ${encoded}\n`);
}
