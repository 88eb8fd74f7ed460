/**
 * What fetch times do not show: the crawler's own work per document (parsing, graph hashing,
 * journaling) runs on one event loop, one document at a time, and holds the document's fetch slot
 * and PLD until it is done. Measured nowhere, so learnt: each recent crawl is replayed with its
 * own fetches in their own order, and the processing time per document that makes the replay last
 * as long as the crawl did is its estimate; the median over crawls is used.
 */
import type { PolicyName } from '../../core/index.ts';
import { type FetchSample, fetchTime } from './profile.ts';
import { type SimJob, simulateCrawl } from './simulate.ts';

/** One past crawl, kept for calibration: its settings, its duration and its fetches per PLD in order. */
export interface PastCrawl {
  readonly concurrency: number;
  readonly policy: PolicyName;
  readonly crawlDelayCapMs: number;
  readonly timeoutMs: number;
  readonly durationMs: number;
  readonly plds: readonly {
    readonly pld: string;
    readonly delayMs: number;
    readonly samples: readonly FetchSample[];
    /** Whether each fetch also fetched its host's robots.txt. */
    readonly robotsFirst: readonly boolean[];
  }[];
}

/** Processing times are searched in [0, MAX_CPU_MS] to 1 ms. */
const MAX_CPU_MS = 512;
/** A crawl whose replay moves less than this share of its duration with 100 ms more per document tells nothing. */
const MIN_SENSITIVITY = 0.05;

function replay(crawl: PastCrawl, cpuMs: number): number {
  const jobs: SimJob[] = crawl.plds.map((p) => ({
    pld: p.pld,
    delayMs: p.delayMs,
    rounds: p.samples.map(() => 0),
    fetchMs: p.samples.map(
      (s, i) =>
        fetchTime(s, p.delayMs, crawl) +
        (p.robotsFirst[i] ? s.requestMs + (s.requests > 0 ? p.delayMs : 0) : 0),
    ),
    sent: p.samples.map((s) => s.requests > 0),
  }));
  return simulateCrawl(jobs, { concurrency: crawl.concurrency, policy: crawl.policy, cpuMs }).makespanMs;
}

/** The processing time per document that makes this crawl's replay match its duration; null when the crawl cannot tell. */
export function crawlCpuMs(crawl: PastCrawl): number | null {
  const base = replay(crawl, 0);
  if (replay(crawl, 100) - base < MIN_SENSITIVITY * crawl.durationMs) return null;
  if (base >= crawl.durationMs) return 0;
  let lo = 0;
  let hi = MAX_CPU_MS;
  if (replay(crawl, hi) < crawl.durationMs) return null;
  while (hi - lo > 1) {
    const mid = (lo + hi) / 2;
    if (replay(crawl, mid) < crawl.durationMs) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The median processing time per document over the crawls that can tell (0 when none can). */
export function calibrateCpu(crawls: readonly PastCrawl[]): number {
  const fitted = crawls
    .map(crawlCpuMs)
    .filter((x): x is number => x !== null)
    .sort((a, b) => a - b);
  return fitted.length === 0 ? 0 : fitted[Math.floor((fitted.length - 1) / 2)];
}
