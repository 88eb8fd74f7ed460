/**
 * The series the truth audit holds the portal against: weeks of weekly snapshots and sub-weekly
 * ticks of the simulated Web, crawled by the real pipeline over real HTTP on a virtual clock, with
 * the server's request log cut into one part per crawl (docs/audit.md). In one process, or through
 * a PostgreSQL coordinator with workers (docs/distributed.md).
 */
import {
  type Clock,
  clockStartingAt,
  crawlConfig,
  parseResolveRule,
  silentLogger,
} from '../../pipeline/core/index.ts';
import { coordinatedCrawl, runWorker } from '../../pipeline/distributed/index.ts';
import { runTick, runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { SLOT_MS, SLOTS_PER_WEEK, WEEK } from '../../pipeline/schedule/index.ts';
import { type RequestLogEntry, SCENARIOS, type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';

const HOUR = 3_600_000;

/** What to crawl: the simulated Web's size and fault rate, and how many weeks. */
export interface AuditSize {
  readonly seed: number;
  readonly documents: number;
  readonly plds: number;
  /** Multiplier of the simulated Web's fault rates. */
  readonly faults: number;
  /** Weeks crawled, each a weekly snapshot and a tick in each of its 15 later slots. */
  readonly weeks: number;
}

export const TEST_SIZE: AuditSize = Object.freeze({
  seed: 20,
  documents: 120,
  plds: 12,
  faults: 2,
  weeks: 3,
});
export const RUN_SIZE: AuditSize = Object.freeze({ seed: 1, documents: 600, plds: 40, faults: 2, weeks: 4 });

/**
 * The scenarios every audited kernel holds beside the generated documents that dereference to RDF:
 * a document that disappears and returns, redirects (303, a chain over two PLDs, a loop), robots.txt
 * rules (a disallowed path, our token blocked, robots.txt failing), HTTP errors and a mislabelled
 * syntax, so that each of the portal's tables has rows whatever the Web's draw.
 */
export const AUDIT_SCENARIOS = [
  'ok',
  'comeback',
  'status-404',
  'status-503',
  'see-other',
  'redirect-chain',
  'redirect-loop',
  'robots-disallow-paths',
  'robots-disallow-paths-private',
  'robots-token-block',
  'robots-server-error',
  'wrong-type-turtle-as-text-plain',
  'format-jsonld',
  'accidental-rdfa',
] as const;

/** A Monday in an even week of the Unix epoch's count, so `comeback` is there, gone, there again. */
export const AUDIT_START = Date.UTC(2026, 0, 5);

/**
 * How the series is crawled: by one process (`runWeeklySnapshot` and `runTick` crawl themselves),
 * or through the coordinator at `url` (a PostgreSQL database) with `workers` in-process workers
 * (`runWorker`, as test/distributed runs them), started for each crawl on the crawl's own virtual
 * clock and stopped once it is published.
 */
export type AuditMode =
  | { readonly kind: 'one-process' }
  | { readonly kind: 'coordinator'; readonly url: string; readonly workers: number };

export const ONE_PROCESS: AuditMode = Object.freeze({ kind: 'one-process' });

/** One published crawl: its snapshot, the virtual moment the Web was held at, and its requests. */
export interface AuditCrawl {
  readonly name: string;
  readonly kind: 'weekly' | 'interval';
  /** Week of the series (0-based) and slot of the week (0 for the weekly snapshot). */
  readonly week: number;
  readonly slot: number;
  /** The virtual time the simulated Web stood at during the crawl (and the crawl's clock started at). */
  readonly at: number;
  /** The server's log of the crawl's requests. */
  readonly requests: readonly RequestLogEntry[];
  /** Through the coordinator: the URLs each worker recorded. */
  readonly recorded?: readonly number[];
}

export interface AuditSeries {
  readonly size: AuditSize;
  readonly mode: AuditMode;
  readonly root: string;
  readonly sim: SimWeb;
  readonly kernel: readonly string[];
  readonly crawls: readonly AuditCrawl[];
  /** Ticks that published nothing: [week, slot, status]. */
  readonly quietTicks: ReadonlyArray<readonly [number, number, string]>;
}

/**
 * Each week's crawls are shifted by 2 h per week (mod 5), so that no two crawls lie a whole number
 * of days or weeks apart: the lifespan buckets (1 day, 1 week, 4 weeks) and the gap buckets of
 * the change-rate estimate then never hinge on the seconds a crawl takes.
 */
export function weekShift(week: number): number {
  return (week % 5) * 2 * HOUR;
}

/** The kernel: every generated document that dereferences to RDF at the start, and the scenarios. */
export function auditKernel(sim: SimWeb, at: number): string[] {
  const generated = sim
    .truth(at)
    .filter((r) => r.kind === 'document' && r.rdf)
    .map((r) => r.uri);
  return [...generated, ...AUDIT_SCENARIOS.map((name) => SCENARIOS[name].url)];
}

/** How long a worker's lease lasts: the default of `observatory worker`. */
const LEASE_MS = 30_000;

/**
 * Runs `run` with `workers` in-process workers serving the coordinator at `url` on `clock`, stops
 * them when it is done, and returns its outcome with the URLs each worker recorded. A worker that
 * fails fails the crawl at once, rather than leave the coordinator waiting for URLs nobody crawls.
 */
async function withWorkers<T>(
  url: string,
  workers: number,
  name: string,
  clock: Clock,
  run: () => Promise<T>,
): Promise<{ outcome: T; recorded: number[] }> {
  const stop = new AbortController();
  const running = Array.from({ length: workers }, (_, i) =>
    runWorker({
      coordinator: url,
      id: `audit-${name}-${i}`,
      leaseMs: LEASE_MS,
      clock,
      logger: silentLogger,
      signal: stop.signal,
    }),
  );
  const stopAll = () => {
    stop.abort();
    return Promise.all(running);
  };
  const failed = Promise.race(running).then(
    () => Promise.reject(new Error(`${name}: a worker stopped before the crawl was published`)),
    (error: unknown) => Promise.reject(error),
  );
  failed.catch(() => {});
  try {
    const outcome = await Promise.race([run(), failed]);
    return { outcome, recorded: await stopAll() };
  } finally {
    await stopAll().catch(() => {});
  }
}

/**
 * Starts the simulated Web and crawls `size.weeks` weeks into `root`: a weekly snapshot (kernel plus
 * one adaptive hop) and a tick in every later slot of its week, in `mode`. The Web stays open (close it).
 */
export async function crawlAuditSeries(
  root: string,
  size: AuditSize,
  mode: AuditMode = ONE_PROCESS,
): Promise<AuditSeries> {
  const sim = await startSimWeb({
    seed: size.seed,
    docs: size.documents,
    plds: size.plds,
    faults: size.faults,
    latencyScale: 0,
    now: AUDIT_START,
  });
  const config = crawlConfig({
    resolve: [parseResolveRule(sim.resolveRule)],
    allowPrivate: true,
    delayMs: 1,
    crawlDelayCapMs: 1,
    // a trickling body of the simulated Web takes a few seconds; a hang costs the whole timeout
    timeoutMs: 10_000,
    maxAttempts: 1,
  });
  const kernel = auditKernel(sim, AUDIT_START);
  const crawls: AuditCrawl[] = [];
  const quietTicks: Array<[number, number, string]> = [];
  const context = (clock: Clock) => ({
    root,
    config,
    clock,
    logger: silentLogger,
    ...(mode.kind === 'coordinator' ? { crawl: coordinatedCrawl(mode.url) } : {}),
  });
  /**
   * One crawl with the Web held at `at` and its requests logged apart; the crawl's clock (the
   * coordinator's and its workers' too) starts at `at`.
   */
  const logged = async <T>(at: number, name: string, run: (clock: Clock) => Promise<T>) => {
    sim.setClock(at);
    sim.clearRequestLog();
    const clock = clockStartingAt(at);
    if (mode.kind === 'one-process') return { outcome: await run(clock), recorded: undefined };
    return withWorkers(mode.url, mode.workers, name, clock, () => run(clock));
  };
  try {
    for (let week = 0; week < size.weeks; week++) {
      const weekStart = AUDIT_START + week * WEEK;
      const at = weekStart + weekShift(week);
      const { outcome: weekly, recorded } = await logged(at, `w${week}`, (clock) =>
        runWeeklySnapshot({ ...context(clock), kernel, adaptiveRounds: 1 }),
      );
      if (weekly.status !== 'published') throw new Error(`week ${week}: weekly snapshot ${weekly.status}`);
      crawls.push({
        name: weekly.snapshot.name,
        kind: 'weekly',
        week,
        slot: 0,
        at,
        requests: sim.requestLog(),
        ...(recorded ? { recorded } : {}),
      });
      for (let slot = 1; slot < SLOTS_PER_WEEK; slot++) {
        const tickAt = weekStart + slot * SLOT_MS + weekShift(week) + 60_000;
        const { outcome: tick, recorded } = await logged(tickAt, `w${week}s${slot}`, (clock) =>
          runTick(context(clock)),
        );
        if (tick.status === 'published')
          crawls.push({
            name: tick.snapshot.name,
            kind: 'interval',
            week,
            slot,
            at: tickAt,
            requests: sim.requestLog(),
            ...(recorded ? { recorded } : {}),
          });
        else {
          if (sim.requestLog().length > 0)
            throw new Error(`tick ${week}/${slot}: requests without a snapshot`);
          quietTicks.push([week, slot, tick.status]);
        }
      }
    }
  } catch (error) {
    await sim.close();
    throw error;
  }
  return { size, mode, root, sim, kernel, crawls, quietTicks };
}
