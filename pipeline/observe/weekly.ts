import { join } from 'node:path';
import { liveStrategy, nextSchedule, weekPosition, weekStartOf } from '../schedule/index.ts';
import type { PublishedSnapshot } from '../snapshot/index.ts';
import { listSnapshots, observationSnapshots, readSchedule, snapshotName } from '../snapshot/index.ts';
import { crawlAndPublish, type ObserveContext, runStrategy } from './crawl-and-publish.ts';
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
}

export type WeeklyOutcome =
  | { readonly status: 'published'; readonly snapshot: PublishedSnapshot; readonly resumed: boolean }
  | { readonly status: 'exists'; readonly name: string }
  | { readonly status: 'stopped'; readonly name: string };

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
 * run is resumed first, whatever day it is.
 */
export function runWeeklySnapshot(o: WeeklyOptions): Promise<WeeklyOutcome> {
  return withRunLock(o.root, () => weeklyUnlocked(o));
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
  const unfinished = await findUnfinishedRun(o.root, 'weekly', o.clock);
  let run = unfinished.run;
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
    } satisfies RunState;
    await saveRunState(o.root, run);
  }
  const weekly = run;
  const previous = await latestSchedule(o.root, weekly.name);
  const strategy = runStrategy(weekly, o);
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
        strategy,
      }),
    o,
  );
  if (!snapshot) return { status: 'stopped', name: weekly.name };
  return { status: 'published', snapshot, resumed };
}
