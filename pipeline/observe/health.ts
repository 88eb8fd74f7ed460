/**
 * The observatory's health as an operator needs it (`observatory status`): the last and next runs,
 * runs that failed or were missed, locks left behind, and the disk. Read only: nothing is resumed,
 * moved or taken over. Costs stay flat over the years: the catalogue, the newest schedule and the
 * manifests of the last four weeks are read, never every snapshot.
 */
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { lockHolder, type SnapshotKind } from '../core/index.ts';
import { SLOT_MS, WEEK, weekStartOf } from '../schedule/index.ts';
import {
  type CatalogueEntry,
  INCOMPLETE_DIR,
  listSnapshots,
  observationSnapshots,
  PUBLISH_LOCK,
  readManifest,
  scheduleDue,
} from '../snapshot/index.ts';
import { listRuns, runLockPath } from './run-state.ts';

/** How long past due a run may be before a person is needed, and how many days of disk must be left. */
export interface HealthLimits {
  readonly lateMs: number;
  readonly minDaysLeft: number;
}

/** One published snapshot as the status names it. */
export interface RunSeen {
  readonly name: string;
  readonly publishedAt: string;
}

/** The health of one snapshots root at `now`; `problems` lists what needs a person (empty: healthy). */
export interface Health {
  readonly root: string;
  readonly now: string;
  readonly lastWeekly: RunSeen | null;
  readonly lastTick: RunSeen | null;
  /** When the next weekly snapshot is due (the week after the last one's), and the next re-visit. */
  readonly nextWeeklyDue: string | null;
  readonly nextTickDue: string | null;
  /** Kernel documents of the newest schedule due longer ago than `lateMs`: ticks that did not run. */
  readonly overdueDocuments: number;
  readonly runs: ReadonlyArray<{
    readonly name: string;
    readonly kind: SnapshotKind | null;
    readonly startedAt: string | null;
    readonly state: 'running' | 'interrupted' | 'damaged';
  }>;
  /** Runs whose damaged run.json was moved aside (folder names in .incomplete/). */
  readonly movedAside: readonly string[];
  /**
   * The live process holding the root's run lock: a weekly snapshot, a tick or an expansion at
   * work (an expansion keeps no run in .incomplete/, so this is how it shows); null when none.
   */
  readonly runLock: { readonly pid: number } | null;
  /** Locks whose holder no longer runs (the next run takes them over). */
  readonly staleLocks: ReadonlyArray<{ readonly path: string; readonly pid: number }>;
  readonly disk: {
    readonly totalBytes: number;
    readonly freeBytes: number;
    readonly usedBytes: number;
    /** Bytes published per week over the last four weeks (or since the first snapshot, if later). */
    readonly growthBytesPerWeek: number;
    /** Days until the device is full at that growth; null when nothing grows. */
    readonly daysLeft: number | null;
  };
  readonly problems: readonly string[];
}

const DAY = 86_400_000;
const GROWTH_SPAN = 4 * WEEK;
const iso = (t: number) => new Date(t).toISOString();

/** Bytes published per week by the snapshots published in the four weeks before `now`. */
async function growthPerWeek(
  root: string,
  published: readonly CatalogueEntry[],
  now: number,
): Promise<number> {
  const recent = published.filter((e) => Date.parse(e.publishedAt) > now - GROWTH_SPAN);
  if (recent.length === 0) return 0;
  let bytes = 0;
  for (const entry of recent) {
    const manifest = await readManifest(join(root, entry.name));
    bytes += manifest.files.reduce((sum, f) => sum + f.bytes, 0);
  }
  const first = Math.min(...published.map((e) => Date.parse(e.publishedAt)));
  const span = Math.max(WEEK, Math.min(GROWTH_SPAN, now - first));
  return (bytes * WEEK) / span;
}

/** What `observatory status` reports of `root` at `now`. */
export async function observatoryHealth(root: string, now: number, limits: HealthLimits): Promise<Health> {
  const problems: string[] = [];
  const published = await listSnapshots(root);
  const observations = observationSnapshots(published);
  const newest = (kind: SnapshotKind) => observations.filter((e) => e.kind === kind).at(-1) ?? null;
  const weekly = newest('weekly');
  const tick = newest('interval');
  const seen = (e: CatalogueEntry | null) => (e ? { name: e.name, publishedAt: e.publishedAt } : null);

  let nextWeeklyDue: number | null = null;
  if (weekly === null) problems.push(`no weekly snapshot published in ${root}`);
  else {
    nextWeeklyDue = weekStartOf(weekly.name) + WEEK;
    const missed = Math.floor((now - nextWeeklyDue) / WEEK) + 1;
    if (now > nextWeeklyDue + limits.lateMs)
      problems.push(
        `the weekly snapshot is late: ${missed} ${missed === 1 ? 'week' : 'weeks'} since ${weekly.name} without one (due ${iso(nextWeeklyDue)})`,
      );
  }

  const latest = observations.at(-1);
  const due = latest ? await scheduleDue(join(root, latest.name), now - limits.lateMs) : null;
  if (due && due.overdue > 0)
    problems.push(
      `${due.overdue} kernel ${due.overdue === 1 ? 'document was' : 'documents were'} due for a re-visit more than ${limits.lateMs / 3_600_000} h ago: is tick running every ${SLOT_MS / 3_600_000} h?`,
    );

  const runLock = await lockHolder(runLockPath(root));
  const { runs, movedAside } = await listRuns(root);
  const runViews = runs.map((r) => ({
    name: r.name,
    kind: r.kind,
    startedAt: r.startedAt === null ? null : iso(r.startedAt),
    state:
      r.problem !== null
        ? ('damaged' as const)
        : runLock?.alive
          ? ('running' as const)
          : ('interrupted' as const),
  }));
  for (const r of runViews) {
    if (r.state === 'damaged')
      problems.push(`run ${r.name} has a damaged run.json: the next run moves it aside`);
    if (r.state === 'interrupted' && r.startedAt !== null && Date.parse(r.startedAt) < now - limits.lateMs)
      problems.push(`run ${r.name} (started ${r.startedAt}) was interrupted and has not been resumed since`);
  }
  for (const name of movedAside)
    problems.push(`${join(root, INCOMPLETE_DIR, name)}: a damaged run moved aside, to inspect and remove`);

  const staleLocks = [];
  for (const path of [runLockPath(root), join(root, INCOMPLETE_DIR, PUBLISH_LOCK)]) {
    const holder = await lockHolder(path);
    if (holder && !holder.alive) staleLocks.push({ path, pid: holder.pid });
  }

  const fs = await statfs(root);
  const totalBytes = fs.blocks * fs.bsize;
  const freeBytes = fs.bavail * fs.bsize;
  const growthBytesPerWeek = await growthPerWeek(root, published, now);
  const daysLeft = growthBytesPerWeek > 0 ? (freeBytes / growthBytesPerWeek) * (WEEK / DAY) : null;
  if (daysLeft !== null && daysLeft < limits.minDaysLeft)
    problems.push(
      `the disk of ${root} is full in ${Math.floor(daysLeft)} days at the last four weeks' growth`,
    );

  return {
    root,
    now: iso(now),
    lastWeekly: seen(weekly),
    lastTick: seen(tick),
    nextWeeklyDue: nextWeeklyDue === null ? null : iso(nextWeeklyDue),
    nextTickDue: due?.nextDue == null ? null : iso(due.nextDue),
    overdueDocuments: due?.overdue ?? 0,
    runs: runViews,
    movedAside,
    runLock: runLock?.alive ? { pid: runLock.pid } : null,
    staleLocks,
    disk: {
      totalBytes,
      freeBytes,
      usedBytes: totalBytes - fs.bfree * fs.bsize,
      growthBytesPerWeek,
      daysLeft,
    },
    problems,
  };
}
