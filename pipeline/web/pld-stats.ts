import type { ErrorCode } from '../core/index.ts';

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

/** What one request contributes to its PLD's statistics. */
export interface RequestOutcome {
  readonly robots: boolean;
  readonly bytes: number;
  readonly serviceMs: number;
  readonly waitMs: number;
  readonly status: number | null;
  readonly error: ErrorCode | null;
}

/** Statistics of one PLD nobody has asked yet. */
export function emptyPldStats(): PldStats {
  return { requests: 0, robotsRequests: 0, bytes: 0, serviceMs: 0, waitMs: 0, statuses: {}, errors: {} };
}

/** Adds one request to the statistics of its PLD in `table`. */
export function recordRequest(table: Map<string, PldStats>, pld: string, outcome: RequestOutcome): void {
  let stats = table.get(pld);
  if (!stats) {
    stats = emptyPldStats();
    table.set(pld, stats);
  }
  stats.requests++;
  if (outcome.robots) stats.robotsRequests++;
  stats.bytes += outcome.bytes;
  stats.serviceMs += outcome.serviceMs;
  stats.waitMs += outcome.waitMs;
  if (outcome.status !== null) stats.statuses[outcome.status] = (stats.statuses[outcome.status] ?? 0) + 1;
  if (outcome.error !== null) stats.errors[outcome.error] = (stats.errors[outcome.error] ?? 0) + 1;
}
