/**
 * The retry rule, one home for the fetch that applies it (fetch-document.ts) and the estimator
 * that replays it (pipeline/schedule/estimate): which failures are asked again, and how long the
 * PLD is held back before each new attempt.
 */
import type { ErrorCode } from '../core/index.ts';

/** Failures worth asking again, up to config.maxAttempts: the server or the path may recover. */
export const RETRIED_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'http_5xx',
  'http_429',
  'reset',
  'timeout',
]);

/**
 * Milliseconds a Retry-After header asks us to wait (RFC 9110 10.2.3: delay-seconds or an
 * HTTP-date, read against `now`); null when absent or unreadable.
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * How long the PLD is held back after failed attempt `attempt` (1 = the first request): what the
 * server asked for (Retry-After), else a doubling backoff from the PLD's delay. The politeness gate
 * caps it like a Crawl-delay (`penalise`) and never starts a request sooner than the delay allows.
 */
export function retryWaitMs(attempt: number, delayMs: number, askedMs: number | null): number {
  return askedMs ?? delayMs * 2 ** attempt;
}

/**
 * The waits before `retries` retries of one request as the gate enforces retryWaitMs, each at least
 * the PLD's delay and at most the Crawl-delay cap: what the estimator replays.
 */
export function retryWaitsMs(
  retries: number,
  delayMs: number,
  askedMs: number | null,
  capMs: number,
): number {
  let total = 0;
  for (let attempt = 1; attempt <= retries; attempt++) {
    total += Math.max(delayMs, Math.min(retryWaitMs(attempt, delayMs, askedMs), capMs));
  }
  return total;
}
