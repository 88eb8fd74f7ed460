import type { CrawlConfig } from '../../core/index.ts';
import { urlPld } from '../../core/index.ts';
import { seededRandom } from '../histories/random.ts';
import { BASELINE_DEFAULTS, type BaselineEstimate, baselineEstimate } from './baseline.ts';
import {
  DEFAULT_PROFILE,
  effectiveDelay,
  fetchTime,
  type HistoryStats,
  type PldProfile,
  type Politeness,
} from './profile.ts';
import { type HistoryPools, pldDraws, poolHistory } from './sampler.ts';
import { type SimJob, simulateCrawl } from './simulate.ts';

/** A URL to estimate, with the breadth-first round it will be fetched in (0 for a URL list). */
export interface PlannedUrl {
  readonly url: string;
  readonly round: number;
}

export interface EstimateOptions {
  readonly urls: readonly (string | PlannedUrl)[];
  readonly stats: HistoryStats;
  readonly config: Pick<CrawlConfig, 'concurrency' | 'delayMs' | 'crawlDelayCapMs' | 'timeoutMs' | 'policy'>;
  /** Monte-Carlo runs over resampled fetch times (default 15). */
  readonly runs?: number;
  readonly seed?: number;
}

/** A PLD that bounds the crawl: its own documents, one after another, take about as long as the crawl. */
export interface BoundingPld {
  readonly pld: string;
  readonly docs: number;
  readonly delayMs: number;
  /** Its documents back to back, delays included (ms, mean over runs). */
  readonly serialMs: number;
  /** Whether history knew it (else the defaults stood in). */
  readonly known: boolean;
}

export interface CrawlEstimate {
  readonly urls: number;
  readonly plds: number;
  readonly unknownPlds: number;
  /** Makespan percentiles over the runs (ms). */
  readonly p10Ms: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  /** Fetch-slot time used (ms, median run) and the share of concurrency x makespan it fills. */
  readonly slotMs: number;
  readonly utilisation: number;
  /** The PLDs whose serial time comes closest to the makespan, longest first (at most 5). */
  readonly bounding: readonly BoundingPld[];
  readonly baseline: BaselineEstimate;
}

interface Group {
  readonly pld: string;
  readonly profile: PldProfile | undefined;
  readonly urls: PlannedUrl[];
}

function groupByPld(urls: readonly (string | PlannedUrl)[], stats: HistoryStats): Group[] {
  const groups = new Map<string, Group>();
  for (const u of urls) {
    const planned = typeof u === 'string' ? { url: u, round: 0 } : u;
    const pld = urlPld(planned.url);
    const g = groups.get(pld) ?? { pld, profile: stats.plds.get(pld), urls: [] };
    groups.set(pld, g);
    g.urls.push(planned);
  }
  for (const g of groups.values()) g.urls.sort((a, b) => a.round - b.round);
  return [...groups.values()];
}

/**
 * One resampled replay input (sampler.ts): a URL seen before keeps its own requests, an unseen
 * one draws a fetch of its PLD; an unseen PLD behaves like a known one drawn at random. The first
 * document of each host also fetches robots.txt.
 */
function jobFor(
  g: Group,
  stats: HistoryStats,
  pools: HistoryPools,
  known: readonly PldProfile[],
  p: Politeness,
  random: () => number,
): SimJob {
  const profile =
    g.profile ?? (known.length > 0 ? known[Math.floor(random() * known.length)] : DEFAULT_PROFILE);
  const delayMs = effectiveDelay(profile, p);
  const draw = pldDraws(profile, pools, random);
  const hosts = new Set<string>();
  const fetchMs: number[] = [];
  const sent: boolean[] = [];
  for (const { url } of g.urls) {
    const sample = draw(stats.urls.get(url));
    let ms = fetchTime(sample, delayMs, p);
    const host = URL.parse(url)?.host ?? url;
    if (!hosts.has(host)) {
      // robots.txt, once per host: one more request and one more delay (a refusal is that request alone)
      hosts.add(host);
      ms += sample.requests > 0 ? sample.requestMs + delayMs : sample.requestMs;
    }
    fetchMs.push(ms);
    sent.push(sample.requests > 0);
  }
  return { pld: g.pld, delayMs, rounds: g.urls.map((u) => u.round), fetchMs, sent };
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

function baselineFor(groups: readonly Group[], p: Politeness, concurrency: number): BaselineEstimate {
  return baselineEstimate(
    groups.map((g) => ({
      pld: g.pld,
      docs: g.urls.length,
      downloadMs: g.profile ? Math.max(1, g.profile.meanDurationMs) : BASELINE_DEFAULTS.downloadMs,
      delayMs: g.profile ? Math.max(1, effectiveDelay(g.profile, p)) : BASELINE_DEFAULTS.delayMs,
    })),
    concurrency,
  );
}

/**
 * Predicts how long our crawler takes over a URL list: `runs` replays of the crawl loop over fetch
 * times resampled from history give P10/P50/P90 of the makespan; the paper's baseline is beside it.
 */
export function estimateCrawl(o: EstimateOptions): CrawlEstimate {
  const runs = Math.max(1, o.runs ?? 15);
  const random = seededRandom(o.seed ?? 1);
  const groups = groupByPld(o.urls, o.stats);
  const known = [...o.stats.plds.values()];
  const pools = poolHistory(o.stats);
  const settings = { concurrency: o.config.concurrency, policy: o.config.policy, cpuMs: o.stats.cpuMs };
  const results: { makespanMs: number; slotMs: number }[] = [];
  const serial = new Float64Array(groups.length);
  for (let r = 0; r < runs; r++) {
    const jobs = groups.map((g) => jobFor(g, o.stats, pools, known, o.config, random));
    const result = simulateCrawl(jobs, settings);
    results.push(result);
    jobs.forEach((job, i) => {
      const sends = job.sent.filter(Boolean).length;
      serial[i] += (job.fetchMs.reduce((s, x) => s + x, 0) + Math.max(0, sends - 1) * job.delayMs) / runs;
    });
  }
  const spans = results.map((x) => x.makespanMs).sort((a, b) => a - b);
  const median = [...results].sort((a, b) => a.makespanMs - b.makespanMs)[Math.floor((runs - 1) / 2)];
  const bounding = groups
    .map((g, i) => ({
      pld: g.pld,
      docs: g.urls.length,
      delayMs: effectiveDelay(g.profile, o.config),
      serialMs: serial[i],
      known: g.profile !== undefined,
    }))
    .sort((a, b) => b.serialMs - a.serialMs || (a.pld < b.pld ? -1 : 1))
    .slice(0, 5);
  return {
    urls: o.urls.length,
    plds: groups.length,
    unknownPlds: groups.filter((g) => !g.profile).length,
    p10Ms: percentile(spans, 0.1),
    p50Ms: percentile(spans, 0.5),
    p90Ms: percentile(spans, 0.9),
    slotMs: median.slotMs,
    utilisation: median.makespanMs > 0 ? median.slotMs / (o.config.concurrency * median.makespanMs) : 0,
    bounding,
    baseline: baselineFor(groups, o.config, o.config.concurrency),
  };
}
