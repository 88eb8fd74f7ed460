import type { ErrorCode } from '../core/index.ts';
import type { ExchangeObserver, ExchangeRecord } from './exchange-record.ts';

/**
 * What the fetcher saw of one PLD, as plain data: enough for the crawler's progress line and for
 * the crawl-time estimator (mean service time = serviceMs / requests; politeness wait = waitMs).
 */
export interface PldStats {
  /** Requests sent: documents, redirect hops, retries, contexts and robots.txt. */
  requests: number;
  /** Of those, robots.txt requests (their redirect hops included). */
  robotsRequests: number;
  /** Decoded body bytes received. */
  bytes: number;
  /** Sum over requests of the time from sending to the end of the body (or the failure). */
  serviceMs: number;
  /** Sum over requests of the time spent waiting at the politeness gate. */
  waitMs: number;
  /** Responses per HTTP status, e.g. `{ "200": 12, "303": 4 }`. */
  statuses: Record<string, number>;
  /** Failed requests per error code (network-level failures; HTTP statuses are in `statuses`). */
  errors: Partial<Record<ErrorCode, number>>;
}

/** Statistics of one PLD nobody has asked yet. */
function emptyPldStats(): PldStats {
  return { requests: 0, robotsRequests: 0, bytes: 0, serviceMs: 0, waitMs: 0, statuses: {}, errors: {} };
}

/** An observer that sums every exchange into the statistics of its PLD. */
export interface PldStatsObserver extends ExchangeObserver {
  /** Statistics per PLD so far (live objects). */
  readonly table: ReadonlyMap<string, Readonly<PldStats>>;
}

export function pldStatsObserver(): PldStatsObserver {
  const table = new Map<string, PldStats>();
  return {
    table,
    exchanged(record: ExchangeRecord) {
      let stats = table.get(record.pld);
      if (!stats) {
        stats = emptyPldStats();
        table.set(record.pld, stats);
      }
      stats.requests++;
      if (record.robots) stats.robotsRequests++;
      stats.bytes += record.decodedBytes;
      stats.serviceMs += record.serviceMs;
      stats.waitMs += record.waitMs;
      const status = record.response?.status;
      if (status !== undefined) stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
      if (record.error !== null) stats.errors[record.error] = (stats.errors[record.error] ?? 0) + 1;
    },
  };
}
