import { DAY, HOUR, MONTH, WEEK, YEAR } from '../strategies/intervals.ts';
import { changeHistory } from './change-history.ts';
import { exponential, seededRandom } from './random.ts';
import type { ChangeHistory } from './types.ts';

/** How synthetic documents change; every kind has the same long-run mean change interval. */
export type SyntheticKind = 'poisson' | 'bursty' | 'weekly' | 'drifting' | 'hawkes' | 'pareto';
export const SYNTHETIC_KINDS: readonly SyntheticKind[] = Object.freeze([
  'poisson',
  'bursty',
  'weekly',
  'drifting',
  'hawkes',
  'pareto',
]);

/** Target mean change intervals per bucket (log-uniform within each); the paper's seven buckets. */
export const SYNTHETIC_BUCKETS: readonly (readonly [number, number])[] = Object.freeze([
  [2 * DAY, 7 * DAY],
  [7 * DAY, 14 * DAY],
  [14 * DAY, MONTH],
  [MONTH, 2 * MONTH],
  [2 * MONTH, 4 * MONTH],
  [4 * MONTH, 6 * MONTH],
  [6 * MONTH, 3 * YEAR],
]);

export interface SyntheticOptions {
  /** Documents per bucket and kind. */
  readonly perBucket: number;
  readonly kinds: readonly SyntheticKind[];
  readonly seed: number;
  readonly span: number;
  /** Start of every history (epoch ms). */
  readonly start: number;
}

/** Mean number of changes in a burst, and how far apart they are. */
const BURST_SIZE = 4;
const BURST_GAP = 6 * HOUR;
/** Weekly documents only change on two days of the week (Monday and Thursday from the start). */
const ACTIVE_DAYS = [0, 3];

function poisson(random: () => number, mean: number, start: number, end: number, out: number[]): void {
  for (let t = start + exponential(random, mean); t <= end; t += exponential(random, mean)) out.push(t);
}

/** Bursts arrive as a Poisson process; each holds 1 + Poisson(BURST_SIZE - 1) changes hours apart. */
function bursty(random: () => number, mean: number, start: number, end: number, out: number[]): void {
  for (let t = start + exponential(random, mean * BURST_SIZE); t <= end; ) {
    let c = t;
    for (let k = 0; ; k++) {
      if (c <= end) out.push(c);
      if (k > 0 && random() < 1 / BURST_SIZE) break;
      c += exponential(random, BURST_GAP);
    }
    t += exponential(random, mean * BURST_SIZE);
  }
}

/** A Poisson process that only runs on the active days of each week (thinning at 7/2 the rate). */
function weekly(random: () => number, mean: number, start: number, end: number, out: number[]): void {
  const active = ACTIVE_DAYS.length / 7;
  for (
    let t = start + exponential(random, mean * active);
    t <= end;
    t += exponential(random, mean * active)
  ) {
    const day = Math.floor(((t - start) % WEEK) / DAY);
    if (ACTIVE_DAYS.includes(day)) out.push(t);
  }
}

/**
 * The rate drifts: log-rate moves linearly from -d to +d (or back) over the span, d up to ln 4,
 * so the document is up to 16 times more dynamic at one end than at the other; the rate is scaled
 * so that the expected number of changes matches the target mean.
 */
function drifting(random: () => number, mean: number, start: number, end: number, out: number[]): void {
  const d = random() * Math.log(4) * (random() < 0.5 ? -1 : 1);
  const span = end - start;
  // mean of e^(d(2u-1)) over u in [0,1] is sinh(d)/d; dividing by it keeps the expected count
  const norm = d === 0 ? 1 : Math.sinh(d) / d;
  const peak = Math.exp(Math.abs(d)) / norm / mean;
  for (let t = start + exponential(random, 1 / peak); t <= end; t += exponential(random, 1 / peak)) {
    const rate = Math.exp(d * ((2 * (t - start)) / span - 1)) / norm / mean;
    if (random() < rate / peak) out.push(t);
  }
}

/** Hawkes documents: each change triggers on average HAWKES_BRANCHING more, HAWKES_DELAY later on average. */
const HAWKES_BRANCHING = 0.7;
const HAWKES_DELAY = 2 * DAY;

/** A Poisson variate (Knuth's product of uniforms: the means here are below 1). */
function poissonCount(random: () => number, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}

/**
 * A self-exciting (Hawkes) process with an exponential kernel, drawn as clusters: immigrants
 * arrive as a Poisson process at (1 - n) / mean, and every change, immigrant or not, triggers
 * Poisson(n) further changes each an exponential delay later; n < 1 keeps the long-run mean
 * change interval at `mean`. Changes past the end are dropped (with their descendants).
 */
function hawkes(random: () => number, mean: number, start: number, end: number, out: number[]): void {
  const pending: number[] = [];
  const immigrantMean = mean / (1 - HAWKES_BRANCHING);
  for (
    let t = start + exponential(random, immigrantMean);
    t <= end;
    t += exponential(random, immigrantMean)
  ) {
    pending.push(t);
    while (pending.length > 0) {
      const c = pending.pop()!;
      out.push(c);
      for (let k = poissonCount(random, HAWKES_BRANCHING); k > 0; k--) {
        const child = c + exponential(random, HAWKES_DELAY);
        if (child <= end) pending.push(child);
      }
    }
  }
}

/** Tail index of the pareto documents' gaps: below 2 the variance is infinite. */
const PARETO_SHAPE = 1.5;

/**
 * A renewal process with heavy-tailed gaps: Lomax (Pareto type II) with shape a and scale
 * mean·(a - 1), so the mean gap is `mean`; most gaps are short and a few are very long.
 */
function pareto(random: () => number, mean: number, start: number, end: number, out: number[]): void {
  const scale = mean * (PARETO_SHAPE - 1);
  const gap = () => scale * ((1 - random()) ** (-1 / PARETO_SHAPE) - 1);
  for (let t = start + gap(); t <= end; t += gap()) out.push(t);
}

const GENERATORS = { poisson, bursty, weekly, drifting, hawkes, pareto };

/** Synthetic change histories: perBucket documents for each bucket and kind, reproducible by seed. */
export function syntheticHistories(options: SyntheticOptions): ChangeHistory[] {
  const random = seededRandom(options.seed);
  const end = options.start + options.span;
  const docs: ChangeHistory[] = [];
  for (const kind of options.kinds) {
    SYNTHETIC_BUCKETS.forEach(([lo, hi], b) => {
      for (let i = 0; i < options.perBucket; i++) {
        const mean = lo * (hi / lo) ** random();
        const changes: number[] = [];
        GENERATORS[kind](random, mean, options.start, end, changes);
        docs.push(changeHistory(`${kind}-${b}-${i}`, options.start, end, changes));
      }
    });
  }
  return docs;
}
