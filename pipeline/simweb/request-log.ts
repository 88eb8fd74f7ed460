/**
 * The server-side record of every crawl request (control requests under /__sim/ excluded), so
 * that tests measure politeness where it matters: gaps between request starts per PLD.
 */

export interface RequestLogEntry {
  /** 1, 2, 3 ... in arrival order. */
  readonly seq: number;
  /** When the request arrived, epoch milliseconds with sub-millisecond precision (real time). */
  readonly startedAt: number;
  /** The virtual clock when the request arrived (epoch ms). */
  readonly virtualAt: number;
  /** `https` when it came over the TLS port. */
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly pld: string;
  readonly method: string;
  /** Path and query as requested. */
  readonly path: string;
  readonly userAgent: string | null;
  /**
   * The request headers the answer depends on (absent: null), so that the log can be replayed
   * against the routing to say what each request was answered (the truth audit, docs/audit.md).
   */
  readonly accept: string | null;
  readonly ifNoneMatch: string | null;
  readonly ifModifiedSince: string | null;
  /** Status sent; null while in flight, or when none was (hang, reset). */
  status: number | null;
}

export interface RequestLog {
  add(entry: Omit<RequestLogEntry, 'seq' | 'status'>): RequestLogEntry;
  /** Entries with seq greater than `since`, oldest first. */
  entries(since?: number): RequestLogEntry[];
  clear(): void;
}

/** An in-memory request log. */
export function createRequestLog(): RequestLog {
  let list: RequestLogEntry[] = [];
  let seq = 0;
  return {
    add(entry) {
      const e: RequestLogEntry = { seq: ++seq, ...entry, status: null };
      list.push(e);
      return e;
    },
    entries(since = 0) {
      if (since <= 0) return [...list];
      const i = list.findIndex((e) => e.seq > since);
      return i < 0 ? [] : list.slice(i);
    },
    clear() {
      list = [];
    },
  };
}
