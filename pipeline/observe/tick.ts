import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObservatoryError } from '../core/index.ts';
import {
  dueUrls,
  liveStrategy,
  nextSchedule,
  planSlot,
  readHistoryStats,
  SLOT_MS,
  WEEK,
  weekPosition,
  weekStartOf,
} from '../schedule/index.ts';
import type { PublishedSnapshot } from '../snapshot/index.ts';
import {
  listSnapshots,
  observationSnapshots,
  SNAPSHOT_SCHEMA_VERSION,
  snapshotName,
} from '../snapshot/index.ts';
import { crawlAndPublish, type ObserveContext, runStrategy } from './crawl-and-publish.ts';
import { refuseNewerRoot } from './newer-root.ts';
import {
  findUnfinishedRun,
  listRuns,
  type RunState,
  reportDamagedRun,
  runDir,
  saveRunState,
  withRunLock,
} from './run-state.ts';
import { crawlWeekly, latestSchedule, type WeeklyRunState } from './weekly.ts';

export type TickOutcome =
  | {
      readonly status: 'published';
      readonly snapshot: PublishedSnapshot;
      readonly due: number;
      readonly missed: readonly number[];
      readonly resumed: boolean;
      /** Due documents left for the next slot because the estimate said they would not fit in this one. */
      readonly postponed: readonly string[];
    }
  /** An interrupted weekly run of the current week, resumed and published instead of the slot's crawl. */
  | { readonly status: 'weekly-resumed'; readonly snapshot: PublishedSnapshot }
  | { readonly status: 'stopped'; readonly name: string }
  | { readonly status: 'busy'; readonly reason: string }
  | { readonly status: 'no-weekly' }
  | { readonly status: 'weekly-due'; readonly weekStart: number }
  | { readonly status: 'weekly-slot'; readonly slot: 0 }
  | { readonly status: 'already-published'; readonly name: string; readonly slot: number }
  /** A later slot is published (by a tick whose clock ran ahead): this one is not published after it. */
  | { readonly status: 'later-published'; readonly name: string; readonly slot: number }
  | { readonly status: 'nothing-due'; readonly slot: number; readonly missed: readonly number[] };

/** Crawls a run's URLs once each (no links followed) and publishes it with the schedule moved on. */
async function crawlDue(run: RunState, ctx: ObserveContext): Promise<PublishedSnapshot | null> {
  const previous = await latestSchedule(ctx.root, run.name);
  const slotStart = run.weekStart + run.slot * SLOT_MS;
  const strategy = runStrategy(run, ctx);
  return crawlAndPublish(
    run,
    {
      seeds: run.seeds,
      maxDepth: 0,
      maxDocuments: run.seeds.length,
      maxRounds: 1,
      segmentFor: () => 'kernel',
    },
    (changes) =>
      nextSchedule({
        previous,
        observations: run.seeds.map((url) => ({ url, changed: changes.get(url) ?? null })),
        observedAt: slotStart,
        strategy,
      }),
    ctx,
  );
}

/** A tick's context: an operator may bound its crawl below what is left of the slot. */
export interface TickContext extends ObserveContext {
  /** Longest the tick's crawl may take (ms); what does not fit waits for the next slot. */
  readonly maxDurationMs?: number;
}

/**
 * One sub-weekly tick: first resumes an interrupted weekly run (see interruptedWeekly), or else an
 * interrupted tick; otherwise finds the current slot of the week (16 slots of 10.5 h from the boundary of
 * the latest weekly snapshot's week, see weekStartOf) and, if that slot's crawl is not published
 * yet, crawls the kernel documents due in it and publishes an interval snapshot named by the
 * slot's start. Slots missed while the observatory was down are reported, not replayed: their
 * documents are simply due now.
 * Safe to call at any frequency: it does nothing when the slot is done.
 */
export async function runTick(ctx: TickContext): Promise<TickOutcome> {
  try {
    return await withRunLock(ctx.root, () => tickUnlocked(ctx));
  } catch (error) {
    // cron may start a tick while the weekly snapshot or a long tick still runs: not a failure
    if (error instanceof ObservatoryError && error.code === 'locked')
      return { status: 'busy', reason: error.message };
    throw error;
  }
}

/**
 * The weekly run left in `.incomplete/` by a killed or failed `snapshot` that a tick takes over, read
 * as it is (a damaged one is the weekly snapshot's to move aside), or null: one of the current week,
 * and one of a week that is over except in the first slot of a week counted from its boundary, the
 * slot in which cron starts `snapshot`, which resumes it and then takes the new week's (a tick that
 * took it there could hold the lock for the whole of a long crawl while `snapshot` waits).
 */
async function interruptedWeekly(root: string, now: number): Promise<WeeklyRunState | null> {
  const { runs } = await listRuns(root);
  const found = runs.find((r) => {
    if (r.kind !== 'weekly' || r.problem !== null) return false;
    const weekStart = weekStartOf(r.name);
    return weekPosition(weekStart, now) !== null || (now - weekStart) % WEEK >= SLOT_MS;
  });
  if (!found) return null;
  return JSON.parse(await readFile(join(runDir(root, found.name), 'run.json'), 'utf8')) as WeeklyRunState;
}

async function tickUnlocked(ctx: TickContext): Promise<TickOutcome> {
  await refuseNewerRoot(ctx.root);
  // the weekly snapshot comes first: cron starts `snapshot` once a week, so a weekly run killed on
  // Monday would otherwise wait a week, and every tick until then would find its week over; and
  // when `snapshot` itself is killed week after week, the ticks in between finish its run
  const interrupted = await interruptedWeekly(ctx.root, ctx.clock.now());
  if (interrupted) {
    const snapshot = await crawlWeekly(interrupted, ctx);
    return snapshot ? { status: 'weekly-resumed', snapshot } : { status: 'stopped', name: interrupted.name };
  }
  const { run: unfinished, damaged } = await findUnfinishedRun(ctx.root, 'interval', ctx.clock);
  // the schedule moves on only when a crawl is published, so a lost crawl's documents are still due
  for (const d of damaged)
    reportDamagedRun(
      d,
      'its crawl is lost and its documents stay due: the tick goes on as if it had never started (its slot, while it lasts, is crawled afresh)',
      ctx.logger,
    );
  if (unfinished) {
    const snapshot = await crawlDue(unfinished, ctx);
    if (!snapshot) return { status: 'stopped', name: unfinished.name };
    return {
      status: 'published',
      snapshot,
      due: unfinished.seeds.length,
      missed: [],
      resumed: true,
      postponed: [],
    };
  }
  const snapshots = await listSnapshots(ctx.root);
  const weekly = snapshots.filter((s) => s.kind === 'weekly').at(-1);
  if (!weekly) return { status: 'no-weekly' };
  const weekStart = weekStartOf(weekly.name);
  // one reading of the clock decides the slot and is the run's start, so the start lies in the slot
  const now = ctx.clock.now();
  const position = weekPosition(weekStart, now);
  if (!position) return { status: 'weekly-due', weekStart };
  if (position.slot === 0) return { status: 'weekly-slot', slot: 0 };
  const published = new Set(snapshots.map((s) => s.name));
  const name = snapshotName('interval', position.slotStart);
  if (published.has(name)) return { status: 'already-published', name, slot: position.slot };
  // published after a later slot, this slot's snapshot would come first in index.json (ordered by
  // start) and the schedule would move on from the later one's, losing what this one observed
  const slotEnd = new Date(position.slotStart + SLOT_MS).toISOString();
  const later = observationSnapshots(snapshots).find((s) => s.startedAt >= slotEnd);
  if (later) return { status: 'later-published', name: later.name, slot: position.slot };
  const schedule = await latestSchedule(ctx.root);
  // a slot was missed when it is not published although documents were due in it
  const missed: number[] = [];
  for (let slot = 1; slot < position.slot; slot++) {
    const start = weekStart + slot * SLOT_MS;
    if (!published.has(snapshotName('interval', start)) && dueUrls(schedule, start).length > 0)
      missed.push(slot);
  }
  if (dueUrls(schedule, position.slotStart).length === 0)
    return { status: 'nothing-due', slot: position.slot, missed };
  // crawls must not overlap: take what the estimator says fits before the next slot starts
  const plan = planSlot({
    schedule,
    slotStart: position.slotStart,
    budgetMs: Math.min(
      position.slotStart + SLOT_MS - ctx.clock.now(),
      ctx.maxDurationMs ?? Number.POSITIVE_INFINITY,
    ),
    stats: await readHistoryStats(ctx.root),
    config: ctx.config,
  });
  const due = plan.fit.map((e) => e.url);
  const postponed = plan.postponed.map((e) => e.url);
  const run: RunState = {
    kind: 'interval',
    name,
    startedAt: now,
    weekStart,
    slot: position.slot,
    seeds: due,
    strategy: liveStrategy(ctx.strategy).name,
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
  };
  await saveRunState(ctx.root, run);
  const snapshot = await crawlDue(run, ctx);
  if (!snapshot) return { status: 'stopped', name };
  return { status: 'published', snapshot, due: due.length, missed, resumed: false, postponed };
}
