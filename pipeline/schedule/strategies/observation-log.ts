import type { History } from './types.ts';

/**
 * A growable History backed by typed arrays with a prefix count of changes, so that window
 * strategies read any window in O(1). The evaluation reuses one log per replay (reset).
 */
export class ObservationLog implements History {
  start = 0;
  length = 0;
  private times: Float64Array;
  private flags: Uint8Array;
  /** prefix[i] = changed observations among 0..i-1. */
  private prefix: Uint32Array;

  constructor(capacity = 64) {
    this.times = new Float64Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.prefix = new Uint32Array(capacity + 1);
  }

  /** Empties the log; `start` is the time of the baseline download. */
  reset(start: number): void {
    this.start = start;
    this.length = 0;
  }

  /** Appends an observation; times must not go backwards. */
  push(at: number, changed: boolean): void {
    if (this.length === this.times.length) this.grow();
    const i = this.length++;
    this.times[i] = at;
    this.flags[i] = changed ? 1 : 0;
    this.prefix[i + 1] = this.prefix[i] + this.flags[i];
  }

  at(i: number): number {
    return this.times[i];
  }

  changed(i: number): boolean {
    return this.flags[i] === 1;
  }

  changedCount(from: number, to: number): number {
    return this.prefix[to] - this.prefix[Math.max(0, from)];
  }

  private grow(): void {
    const n = this.times.length * 2;
    const times = new Float64Array(n);
    const flags = new Uint8Array(n);
    const prefix = new Uint32Array(n + 1);
    times.set(this.times);
    flags.set(this.flags);
    prefix.set(this.prefix);
    this.times = times;
    this.flags = flags;
    this.prefix = prefix;
  }
}

/** A History from a list of observations (what `tick` reads back from documents.parquet). */
export function historyOf(start: number, observations: Iterable<{ at: number; changed: boolean }>): History {
  const log = new ObservationLog();
  log.reset(start);
  for (const o of observations) log.push(o.at, o.changed);
  return log;
}
