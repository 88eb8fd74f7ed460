/**
 * Politeness per pay-level domain as plain data and pure functions (Crawlee's DomainState idea):
 * nothing here waits; it answers "not before t". The gate (politeness-gate.ts) does the waiting.
 *
 * The delay is counted from the later of a request's start and the moment it was known to have
 * reached the server (its response headers arrived, or it failed). A request is only known to have
 * reached the server then, so counting from it makes "starts at the server are >= delay apart" hold
 * whatever the network latency or the load on either side.
 */
export interface PldState {
  /** The PLD's delay: max(config delay, capped robots Crawl-delay). */
  delayMs: number;
  /** Latest start or confirmation, in clock ms, rounded up. */
  lastAt: number;
  /** No request before this (Retry-After, backoff). */
  penaltyUntil: number;
  /** Requests started and not yet released. */
  inFlight: number;
  /** Requests started whose arrival at the server is not yet confirmed. */
  unconfirmed: number;
}

/** A fresh state for a PLD nobody has asked yet. */
export function newPldState(delayMs: number): PldState {
  // no bound yet is -Infinity, not 0: a clock before 1970 (any clock value) must find a new PLD ready
  return {
    delayMs,
    lastAt: Number.NEGATIVE_INFINITY,
    penaltyUntil: Number.NEGATIVE_INFINITY,
    inFlight: 0,
    unconfirmed: 0,
  };
}

/** Earliest clock time a new request may start; Infinity until a request in flight ends or is confirmed. */
export function readyTime(state: PldState, perPld: number): number {
  if (state.inFlight >= perPld || state.unconfirmed > 0) return Number.POSITIVE_INFINITY;
  return Math.max(state.lastAt + state.delayMs, state.penaltyUntil);
}

// Clocks give whole milliseconds while real time runs on; one more keeps the gap strictly >= delay.
const ROUNDING_MS = 1;

/** Records a request start at `now`. */
export function startRequest(state: PldState, now: number): void {
  state.inFlight++;
  state.unconfirmed++;
  state.lastAt = Math.max(state.lastAt, now + ROUNDING_MS);
}

/** Records that a started request has reached the server (or failed) at `now`. */
export function confirmRequest(state: PldState, now: number): void {
  state.unconfirmed--;
  state.lastAt = Math.max(state.lastAt, now + ROUNDING_MS);
}

/** Records the end of a request. */
export function endRequest(state: PldState): void {
  state.inFlight--;
}

/** Holds the PLD back until `untilMs` (never shortens an earlier penalty). */
export function penaliseState(state: PldState, untilMs: number): void {
  state.penaltyUntil = Math.max(state.penaltyUntil, untilMs);
}
