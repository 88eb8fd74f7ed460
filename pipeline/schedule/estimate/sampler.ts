/**
 * Draws what fetching a document will cost, from history, borrowing strength across PLDs. A PLD
 * fetched a handful of times says little about rare events (a redirect chain, a flapping 5xx, a
 * timeout) or about how widely its server's answer times spread, and a replay that only resamples
 * those few fetches under-predicts the slowest documents of a crawl, which are what bound short
 * crawls. So a PLD keeps what is its own (its speed, its usual hops, what robots.txt refuses), and
 * the rest is borrowed, as often as the PLD's own history is thin (with n fetches seen,
 * n / (n + PRIOR_FETCHES) of the draws are its own): extra hops, retries and timeouts from every
 * PLD with enough history, the spread of answer times from those closest to it in speed.
 */
import type { FetchSample, HistoryStats, PldProfile } from './profile.ts';

/** How many fetches of a PLD weigh as much as the pooled history of all PLDs. */
const PRIOR_FETCHES = 10;
/** PLDs with at least this many answered fetches teach the pooled shape of answer times and the extras. */
const POOL_MIN_FETCHES = 5;
/** Draws that stand for the uncertainty of a PLD's mean speed (more change nothing visible). */
const MAX_SPEED_DRAWS = 64;
/**
 * A PLD borrows the spread of answer times from the PLDs closest to it in mean speed: on a fast
 * server the spread is mostly the network's and the crawler's own lag, which would be absurd
 * multiplied up to a slow one.
 */
const SPEED_NEIGHBOURS = 8;

/** What a fetch did beyond the document's usual requests. */
interface Extra {
  /** Hops more (or fewer) than its PLD's usual. */
  readonly hops: number;
  readonly retries: number;
  readonly retryAfterMs: number | null;
  readonly timedOut: boolean;
}

interface PldModel {
  /** Answer times of fetches that were answered in time. */
  readonly speeds: readonly number[];
  readonly meanSpeedMs: number;
  /** The most common requests per document without retries: 1, or 2 behind a 303. */
  readonly usualHops: number;
}

/** One PLD's answer times over their mean: the shape of its server's answer times, without the scale. */
interface Shape {
  readonly meanSpeedMs: number;
  readonly ratios: readonly number[];
}

/** What all PLDs teach together, every PLD weighing the same; built once per estimate. */
export interface HistoryPools {
  /** By mean speed, fastest first. */
  readonly shapes: readonly Shape[];
  readonly extras: readonly (readonly Extra[])[];
  readonly models: Map<PldProfile, PldModel>;
}

const answered = (s: FetchSample) => s.requests > 0;

function modelOf(profile: PldProfile, models: Map<PldProfile, PldModel>): PldModel {
  const cached = models.get(profile);
  if (cached) return cached;
  const speeds = profile.samples.filter((s) => answered(s) && !s.timedOut).map((s) => s.requestMs);
  const hops = new Map<number, number>();
  for (const s of profile.samples.filter(answered)) {
    hops.set(s.requests - s.retries, (hops.get(s.requests - s.retries) ?? 0) + 1);
  }
  const usualHops = [...hops].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 1;
  const model = {
    speeds,
    meanSpeedMs: speeds.reduce((a, b) => a + b, 0) / Math.max(1, speeds.length),
    usualHops,
  };
  models.set(profile, model);
  return model;
}

/** The shapes of answer times and the extras of the PLDs that have enough history. */
export function poolHistory(stats: HistoryStats): HistoryPools {
  const models = new Map<PldProfile, PldModel>();
  const shapes: Shape[] = [];
  const extras: Extra[][] = [];
  for (const profile of stats.plds.values()) {
    const model = modelOf(profile, models);
    if (model.speeds.length >= POOL_MIN_FETCHES && model.meanSpeedMs > 0) {
      shapes.push({
        meanSpeedMs: model.meanSpeedMs,
        ratios: model.speeds.map((ms) => ms / model.meanSpeedMs),
      });
    }
    const fetched = profile.samples.filter(answered);
    if (fetched.length < POOL_MIN_FETCHES) continue;
    extras.push(
      fetched.map((s) => ({
        hops: s.requests - s.retries - model.usualHops,
        retries: s.retries,
        retryAfterMs: s.retryAfterMs,
        timedOut: s.timedOut,
      })),
    );
  }
  shapes.sort((a, b) => a.meanSpeedMs - b.meanSpeedMs);
  return { shapes, extras, models };
}

/** The SPEED_NEIGHBOURS shapes closest to `meanSpeedMs` (by ratio of means). */
function neighbours(shapes: readonly Shape[], meanSpeedMs: number): readonly Shape[] {
  let lo = 0;
  let hi = shapes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (shapes[mid].meanSpeedMs < meanSpeedMs) lo = mid + 1;
    else hi = mid;
  }
  let from = lo;
  let to = lo;
  const distance = (i: number) => Math.abs(Math.log(shapes[i].meanSpeedMs / meanSpeedMs));
  while (to - from < SPEED_NEIGHBOURS && (from > 0 || to < shapes.length)) {
    if (to >= shapes.length || (from > 0 && distance(from - 1) <= distance(to))) from--;
    else to++;
  }
  return shapes.slice(from, to);
}

/**
 * The fetches of one PLD in one replay: its mean speed is drawn once (as uncertain as its history
 * is short), then each call draws a document's fetch. `own` is the URL's own last fetch, when
 * history has one: its requests recur, only the answer time is drawn.
 */
export function pldDraws(
  profile: PldProfile,
  pools: HistoryPools,
  random: () => number,
): (own: FetchSample | undefined) => FetchSample {
  const model = modelOf(profile, pools.models);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const ownShare = profile.samples.length / (profile.samples.length + PRIOR_FETCHES);
  const near = model.speeds.length > 0 ? neighbours(pools.shapes, model.meanSpeedMs) : [];
  const pooled = near.length > 0;
  const ratio = () => pick(pick(near).ratios);
  let scale = 1;
  if (pooled) {
    const n = Math.min(model.speeds.length, MAX_SPEED_DRAWS);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += ratio();
    scale = sum / n;
  }
  return (own) => {
    let sample = own ?? pick(profile.samples);
    if (!answered(sample)) return sample;
    if (!own && pools.extras.length > 0 && random() >= ownShare) {
      const extra = pick(pick(pools.extras));
      sample = {
        requests: Math.max(1, model.usualHops + extra.hops) + extra.retries,
        retries: extra.retries,
        retryAfterMs: extra.retryAfterMs,
        requestMs: sample.requestMs,
        timedOut: extra.timedOut,
      };
    }
    if (model.speeds.length === 0) return sample;
    const speed = pooled && random() >= ownShare ? model.meanSpeedMs * ratio() : pick(model.speeds);
    return { ...sample, requestMs: scale * speed };
  };
}
