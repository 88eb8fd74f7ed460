import type { ErrorCode } from '../core/index.ts';

/** Why a recorded body is incomplete, in WARC-Truncated's words (WARC/1.1 section 5.13). */
export type Truncation = 'length' | 'time' | 'disconnect' | 'unspecified';

/** A response as it came over the wire: what an archive keeps of it. */
export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  /** Header name/value pairs in the order received, names as the server spelled them. */
  readonly headers: readonly (readonly [string, string])[];
  /**
   * Body bytes as received: still content-encoded (gzip stays gzip), chunked transfer coding
   * removed by the HTTP client, at most the exchange's byte limit.
   */
  readonly body: readonly Buffer[];
  readonly bodyBytes: number;
  /** Set when the body is not complete: cut at the byte limit, the deadline, or the connection. */
  readonly truncated: Truncation | null;
}

/** One HTTP exchange of a fetcher, as its observers see it once it is over. */
export interface ExchangeRecord {
  /** Number of the exchange within its fetcher, from 1; FetchResult.responseId refers to it. */
  readonly id: number;
  readonly url: string;
  readonly pld: string;
  /** A robots.txt request (its redirect hops included). */
  readonly robots: boolean;
  /** Clock time the request was sent (after the politeness wait). */
  readonly sentAt: number;
  readonly waitMs: number;
  /** From sending to the end of the body, or the failure. */
  readonly serviceMs: number;
  /** Request line and header lines exactly as sent (Host included), blank line included; null if never sent. */
  readonly requestHead: string | null;
  /** The address the request went to; null if no connection was made. */
  readonly remoteAddress: string | null;
  /** Null when no response head arrived (DNS, refused, blocked address, timeout before headers). */
  readonly response: RawResponse | null;
  /** Decoded body bytes the fetcher kept. */
  readonly decodedBytes: number;
  /** The network-level failure, or the body's failure after the headers. */
  readonly error: ErrorCode | null;
}

/** Told of every exchange a fetcher makes, in the order they end. Must not throw. */
export interface ExchangeObserver {
  exchanged(record: ExchangeRecord): void;
}
