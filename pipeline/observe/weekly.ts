import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ObservatoryError } from '../core/index.ts';
import { liveStrategy, nextSchedule, weekPosition, weekStartOf } from '../schedule/index.ts';
import type { PublishedSnapshot } from '../snapshot/index.ts';
import {
  listSnapshots,
  observationSnapshots,
  readSchedule,
  SNAPSHOT_SCHEMA_VERSION,
  snapshotName,
} from '../snapshot/index.ts';
import { crawlAndPublish, type ObserveContext, runStrategy } from './crawl-and-publish.ts';
import { refuseNewerRoot } from './newer-root.ts';
import {
  findUnfinishedRun,
  type RunState,
  reportDamagedRun,
  saveRunState,
  withRunLock,
} from './run-state.ts';

export interface WeeklyOptions extends ObserveContext {
  /** The kernel URIs (seeds/kernel.txt). */
  readonly kernel: readonly string[];
  /** Hops of the adaptive crawl out from the kernel (one breadth-first round each). */
  readonly adaptiveRounds: number;
  /**
   * How long to wait for the run lock while another live process holds it (ms, real time; default
   * 0: fail with `locked` at once). Cron starts the weekly snapshot and a tick together at the week's
   * boundary, and the tick may hold the lock for a moment, or while it resumes an interrupted crawl.
   */
  readonly lockWaitMs?: number;
}

/** Hops of the adaptive crawl for a weekly run resumed by a command that has no such option (tick), when the run does not say. */
export const DEFAULT_ADAPTIVE_ROUNDS = 3;

/**
 * A weekly run's state: a RunState, and the adaptive crawl's hops, kept in its run.json (absent in
 * runs saved before they were kept) so that a tick can resume the run as `snapshot` began it.
 */
export interface WeeklyRunState extends RunState {
  readonly adaptiveRounds?: number;
}

export type WeeklyOutcome =
  | {
      readonly status: 'published';
      readonly snapshot: PublishedSnapshot;
      readonly resumed: boolean;
      /** An interrupted run of a week that is over, resumed and published before this week's snapshot. */
      readonly earlier?: PublishedSnapshot;
    }
  | { readonly status: 'exists'; readonly name: string; readonly earlier?: PublishedSnapshot }
  | { readonly status: 'stopped'; readonly name: string };

/** How often a weekly snapshot waiting for the run lock looks again. */
const LOCK_POLL_MS = 1000;

/**
 * The schedule left by the most recent published observation (the state `tick` and the next week
 * continue); an expansion crawl carries no schedule.
 */
export async function latestSchedule(root: string, before?: string) {
  const snapshots = observationSnapshots(await listSnapshots(root)).filter((s) => s.name !== before);
  const latest = snapshots.at(-1);
  return latest ? readSchedule(join(root, latest.name)) : [];
}

/**
 * The weekly snapshot: every kernel URI (segment kernel), then an adaptive breadth-first crawl
 * outward from the kernel of up to as many URIs again (segment adaptive). An interrupted weekly
 * run is resumed first, whatever day it is; when its week is over, this week's snapshot follows.
 * A run lock held by another live process is waited for up to `lockWaitMs`.
 */
export async function runWeeklySnapshot(o: WeeklyOptions): Promise<WeeklyOutcome> {
  // real time: what is waited for is another process, not this run's (possibly virtual) clock
  const deadline = Date.now() + (o.lockWaitMs ?? 0);
  for (;;) {
    try {
      return await withRunLock(o.root, () => weeklyUnlocked(o));
    } catch (error) {
      if (!(error instanceof ObservatoryError && error.code === 'locked') || Date.now() >= deadline)
        throw error;
      o.logger.info(
        { reason: error.message, waitMs: deadline - Date.now() },
        'run lock held; waiting for it',
      );
      await sleep(Math.min(LOCK_POLL_MS, Math.max(0, deadline - Date.now())));
    }
  }
}

/**
 * Crawls and publishes a weekly run, new or resumed (by `snapshot`, or by a tick in the run's
 * week): the kernel, then the adaptive crawl of the run's hops (`adaptiveRounds` where the run
 * does not say), and the schedule moved on from the week's boundary.
 */
export async function crawlWeekly(
  run: WeeklyRunState,
  ctx: ObserveContext,
  adaptiveRounds = DEFAULT_ADAPTIVE_ROUNDS,
): Promise<PublishedSnapshot | null> {
  const previous = await latestSchedule(ctx.root, run.name);
  const strategy = runStrategy(run, ctx);
  return crawlAndPublish(
    run,
    {
      seeds: run.seeds,
      // the adaptive crawl goes `adaptiveRounds` hops out from the kernel, within the budget
      maxDepth: run.adaptiveRounds ?? adaptiveRounds,
      maxDocuments: 2 * run.seeds.length,
      maxRounds: Number.POSITIVE_INFINITY,
      segmentFor: (depth) => (depth === 0 ? 'kernel' : 'adaptive'),
    },
    (changes) =>
      nextSchedule({
        previous,
        observations: run.seeds.map((url) => ({ url, changed: changes.get(url) ?? null })),
        observedAt: run.weekStart,
        kernel: run.seeds,
        strategy,
      }),
    ctx,
  );
}

/** What a weekly snapshot does about a damaged run instead of resuming it, as its report says it. */
function damagedWeeklyConsequence(
  name: string,
  restart: string | undefined,
  resumed: RunState | null,
  published: ReadonlySet<string>,
): string {
  if (published.has(name)) return `snapshot ${name} is published already, so nothing is lost`;
  if (name === restart) return 'its crawl is lost and starts over under the same name (its week is not over)';
  if (resumed) return `its crawl is lost; the interrupted run ${resumed.name} is resumed instead`;
  return 'its crawl is lost and its week is not the current one, so it is not crawled again';
}

async function weeklyUnlocked(o: WeeklyOptions): Promise<WeeklyOutcome> {
  await refuseNewerRoot(o.root);
  const unfinished = await findUnfinishedRun(o.root, 'weekly', o.clock);
  let run: WeeklyRunState | null = unfinished.run;
  const resumed = run !== null;
  const published = new Set((await listSnapshots(o.root)).map((s) => s.name));
  const now = o.clock.now();
  // a damaged run of the week now current starts over under its own name: the week counts from it
  const restart =
    run === null
      ? unfinished.damaged.find(
          (d) => !published.has(d.name) && weekPosition(weekStartOf(d.name), now) !== null,
        )?.name
      : undefined;
  for (const damaged of unfinished.damaged)
    reportDamagedRun(damaged, damagedWeeklyConsequence(damaged.name, restart, run, published), o.logger);
  if (!run) {
    const name = restart ?? snapshotName('weekly', now);
    if (published.has(name)) return { status: 'exists', name };
    run = {
      kind: 'weekly',
      name,
      startedAt: now,
      // the week's slots count from its boundary, not from this measured instant
      weekStart: weekStartOf(name),
      slot: 0,
      seeds: o.kernel,
      strategy: liveStrategy(o.strategy).name,
      adaptiveRounds: o.adaptiveRounds,
      schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    } satisfies WeeklyRunState;
    await saveRunState(o.root, run);
  }
  const snapshot = await crawlWeekly(run, o, o.adaptiveRounds);
  if (!snapshot) return { status: 'stopped', name: run.name };
  // a resumed run of a week that is over leaves this week without its snapshot: take it now
  if (resumed && weekPosition(run.weekStart, o.clock.now()) === null) {
    const current = await weeklyUnlocked(o);
    return current.status === 'stopped' ? current : { ...current, earlier: snapshot };
  }
  return { status: 'published', snapshot, resumed };
}
