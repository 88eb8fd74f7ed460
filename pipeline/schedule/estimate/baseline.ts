/**
 * The crawl-time heuristic of the rescheduling paper, restated as its authors describe it, so
 * that our estimator can be compared with it on the same crawls (docs/estimation.md).
 */

/** One domain of the URL list as the heuristic sees it. */
export interface BaselineDomain {
  readonly pld: string;
  readonly docs: number;
  /** c: average download time of one document (ms). */
  readonly downloadMs: number;
  /** d: the delay between two requests to the domain (ms). */
  readonly delayMs: number;
}

export interface BaselineEstimate {
  /** The estimate: the bin size (ms). */
  readonly makespanMs: number;
  /** Threads the packing needs: per bin, its largest domain thread count (rounded up). */
  readonly threads: number;
  readonly bins: number;
  /** Per-domain thread cap the packing ended with. */
  readonly threadCap: number;
}

/** The paper's defaults for a domain with no history. */
export const BASELINE_DEFAULTS = Object.freeze({ delayMs: 1000, downloadMs: 2000 });

/** Bin sizes grow by this factor once the thread cap cannot fall any more (our completion of the rule). */
const GROWTH = 1.1;

interface Sized {
  readonly threads: number;
  readonly timeMs: number;
}

/** Threads for a domain = c / d, at most `cap`; its crawl time = docs x c / threads + d x (threads - 1). */
function sized(d: BaselineDomain, cap: number): Sized {
  const threads = Math.min(cap, d.downloadMs / d.delayMs);
  return { threads, timeMs: (d.docs * d.downloadMs) / threads + d.delayMs * (threads - 1) };
}

/**
 * First-fit packing into bins of `size`: domains by descending thread count, each into the bin
 * where it fits with the smallest resulting load (the one that keeps bins smallest), else a new
 * bin. Returns the threads needed (sum over bins of the largest thread count, rounded up).
 */
function pack(domains: readonly Sized[], size: number): { threads: number; bins: number } {
  const order = [...domains].sort((a, b) => b.threads - a.threads || b.timeMs - a.timeMs);
  const loads: number[] = [];
  const peaks: number[] = [];
  for (const d of order) {
    let best = -1;
    for (let i = 0; i < loads.length; i++) {
      if (loads[i] + d.timeMs <= size && (best < 0 || loads[i] < loads[best])) best = i;
    }
    if (best < 0) {
      loads.push(d.timeMs);
      peaks.push(d.threads);
    } else {
      loads[best] += d.timeMs;
      peaks[best] = Math.max(peaks[best], d.threads);
    }
  }
  return { threads: peaks.reduce((s, p) => s + Math.ceil(p - 1e-9), 0), bins: loads.length };
}

/**
 * The baseline estimate: pack at bin size = the largest domain crawl time; while the packing needs
 * more than `maxThreads` threads, lower the per-domain thread cap by one and repeat. When the cap
 * is down to one thread and still too many are needed, the paper does not say; we then let the
 * bin size grow by 10% a step until the bins fit.
 */
export function baselineEstimate(domains: readonly BaselineDomain[], maxThreads: number): BaselineEstimate {
  const active = domains.filter((d) => d.docs > 0);
  if (active.length === 0) return { makespanMs: 0, threads: 0, bins: 0, threadCap: 0 };
  let cap = Math.max(1, Math.ceil(Math.max(...active.map((d) => d.downloadMs / d.delayMs)) - 1e-9));
  for (;;) {
    const items = active.map((d) => sized(d, cap));
    let size = Math.max(...items.map((i) => i.timeMs));
    let packed = pack(items, size);
    if (packed.threads <= maxThreads || cap > 1) {
      if (packed.threads <= maxThreads) return { makespanMs: size, ...packed, threadCap: cap };
      cap--;
      continue;
    }
    while (packed.threads > maxThreads) {
      size *= GROWTH;
      packed = pack(items, size);
    }
    return { makespanMs: size, ...packed, threadCap: cap };
  }
}
