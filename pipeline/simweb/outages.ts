/**
 * Pay-level domains made unreachable on demand (`POST /__sim/outages`, `sim.setUnreachable`): a
 * site down for a while, as the lifetime benchmark needs one for a month. A request to any host of
 * such a PLD is logged, then its connection is destroyed before any answer (what the crawler sees
 * as `reset`, and its robots.txt as unavailable); nothing else about the Web changes.
 */
export interface Outages {
  /** Whether requests to this PLD go unanswered now. */
  has(pld: string): boolean;
  /** Replaces the unreachable PLDs (an empty list: every PLD answers again). */
  set(plds: readonly string[]): void;
  list(): string[];
}

/** An empty set of outages. */
export function createOutages(): Outages {
  let down = new Set<string>();
  return {
    has: (pld) => down.size > 0 && down.has(pld),
    set(plds) {
      down = new Set(plds.map((p) => p.toLowerCase()));
    },
    list: () => [...down].sort(),
  };
}
