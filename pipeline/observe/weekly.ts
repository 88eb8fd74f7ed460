import { join } from 'node:path';
import { nextSchedule, weekStartOf } from '../schedule/index.ts';
import type { PublishedSnapshot } from '../snapshot/index.ts';
import { listSnapshots, readSchedule, snapshotName } from '../snapshot/index.ts';
import { crawlAndPublish, type ObserveContext } from './crawl-and-publish.ts';
import { findUnfinishedRun, type RunState, saveRunState, withRunLock } from './run-state.ts';

export interface WeeklyOptions extends ObserveContext {
  /** The kernel URIs (seeds/kernel.txt). */
  readonly kernel: readonly string[];
  /** Hops of the adaptive crawl out from the kernel (one breadth-first round each). */
  readonly adaptiveRounds: number;
}

export type WeeklyOutcome =
  | { readonly status: 'published'; readonly snapshot: PublishedSnapshot; readonly resumed: boolean }
  | { readonly status: 'exists'; readonly name: string }
  | { readonly status: 'stopped'; readonly name: string };

/** The schedule left by the most recent published snapshot (the state `tick` and the next week continue). */
export async function latestSchedule(root: string, before?: string) {
  const snapshots = (await listSnapshots(root)).filter((s) => s.name !== before);
  const latest = snapshots.at(-1);
  return latest ? readSchedule(join(root, latest.name)) : [];
}

/**
 * The weekly snapshot: every kernel URI (segment kernel), then an adaptive breadth-first crawl
 * outward from the kernel of up to as many URIs again (segment adaptive). An interrupted weekly
 * run is resumed first, whatever day it is.
 */
export function runWeeklySnapshot(o: WeeklyOptions): Promise<WeeklyOutcome> {
  return withRunLock(o.root, () => weeklyUnlocked(o));
}

async function weeklyUnlocked(o: WeeklyOptions): Promise<WeeklyOutcome> {
  let run = await findUnfinishedRun(o.root, 'weekly');
  const resumed = run !== null;
  if (!run) {
    const now = o.clock.now();
    const name = snapshotName('weekly', now);
    if ((await listSnapshots(o.root)).some((s) => s.name === name)) return { status: 'exists', name };
    run = {
      kind: 'weekly',
      name,
      startedAt: now,
      // the week's slots count from its boundary, not from this measured instant
      weekStart: weekStartOf(name),
      slot: 0,
      seeds: o.kernel,
    } satisfies RunState;
    await saveRunState(o.root, run);
  }
  const weekly = run;
  const previous = await latestSchedule(o.root, weekly.name);
  const snapshot = await crawlAndPublish(
    weekly,
    {
      seeds: weekly.seeds,
      // the adaptive crawl goes `adaptiveRounds` hops out from the kernel, within the budget
      maxDepth: o.adaptiveRounds,
      maxDocuments: 2 * weekly.seeds.length,
      maxRounds: Number.POSITIVE_INFINITY,
      segmentFor: (depth) => (depth === 0 ? 'kernel' : 'adaptive'),
    },
    (changes) =>
      nextSchedule({
        previous,
        observations: weekly.seeds.map((url) => ({ url, changed: changes.get(url) ?? null })),
        observedAt: weekly.weekStart,
        kernel: weekly.seeds,
      }),
    o,
  );
  if (!snapshot) return { status: 'stopped', name: weekly.name };
  return { status: 'published', snapshot, resumed };
}
