/**
 * The strategy contract shared by `observatory evaluate` (any interval in [min, max]) and the
 * sub-weekly `tick` (DyLDO levels). A strategy is pure: given what was observed so far and its own
 * state, it answers the next re-visit interval and its next state; it never reads a clock.
 */

/** Re-visit intervals are kept within these limits (milliseconds). */
export interface Bounds {
  readonly min: number;
  readonly max: number;
}

/**
 * The observations of one document so far, oldest first. Observation i is the download made at
 * `at(i)`; `changed(i)` says whether the document differed from the observation before it (for
 * i = 0, from the first download at `start`, which is the baseline and not an observation).
 */
export interface History {
  readonly start: number;
  readonly length: number;
  at(i: number): number;
  changed(i: number): boolean;
  /** How many of the observations from..to-1 found a change (O(1): strategies look at windows). */
  changedCount(from: number, to: number): number;
}

/** What the evaluation knows about a document and a strategy must not: only oracles read it. */
export interface Truth {
  /** The document's true mean change interval (ms); Infinity when it never changed. */
  readonly meanChangeInterval: number;
}

/** Everything a strategy is told after each observation. */
export interface DecisionInput<S> {
  /** Every observation so far; the newest one was just made. */
  readonly history: History;
  /** The interval in force when the newest observation was scheduled. */
  readonly interval: number;
  readonly state: S;
  readonly bounds: Bounds;
  readonly truth?: Truth;
}

/** A strategy's answer: the next interval (within bounds) and its state for next time. */
export interface Decision<S> {
  readonly interval: number;
  readonly state: S;
}

/** A re-visit strategy. State is plain JSON-serialisable data, so `tick` can persist it. */
export interface Strategy<S = unknown> {
  readonly name: string;
  /** One line for tables and `--help`. */
  readonly summary: string;
  /** True for strategies that read `truth` (evaluation only, never for crawling). */
  readonly oracle: boolean;
  /** State before the first observation, given the starting interval. */
  init(interval: number): S;
  next(input: DecisionInput<S>): Decision<S>;
}
