import { existsSync, renameSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Logger, SnapshotKind } from '../core/index.ts';
import {
  acquirePidLock,
  makeDirectory,
  ObservatoryError,
  quoteInput,
  writeFileAtomic,
} from '../core/index.ts';
import { SLOTS_PER_WEEK } from '../schedule/index.ts';
import { INCOMPLETE_DIR, snapshotKindOf } from '../snapshot/index.ts';

/**
 * What a crawl in progress must remember to resume unchanged on another day: its name, when it
 * started, and the exact URLs it was asked to crawl (the kernel or the due list may change in
 * between). Kept as `run.json` beside the crawl journal in `.incomplete/<name>/`.
 */
export interface RunState {
  readonly kind: SnapshotKind;
  readonly name: string;
  readonly startedAt: number;
  /** Start of the week (weekly snapshot) the run belongs to. */
  readonly weekStart: number;
  /** Slot 0 for weekly snapshots, 1..15 for interval crawls. */
  readonly slot: number;
  readonly seeds: readonly string[];
  /**
   * The re-visit strategy the run's schedule is moved on with, fixed at its start so that a run
   * resumed with other options publishes what it began (absent in runs saved before it was kept).
   */
  readonly strategy?: string;
  /** Set once the crawl is complete, so that a publish rerun after a crash sees the same input. */
  readonly endedAt?: number;
  /**
   * The snapshot schema of the software that journaled the run (absent: a version before it was
   * kept, which published schema 3 or older). A run journaled under another schema was parsed by
   * another parser: its documents are crawled again rather than published beside this version's.
   */
  readonly schemaVersion?: number;
}

const RUN_FILE = 'run.json';

/** The folder of a run in progress. */
export function runDir(root: string, name: string): string {
  return join(root, INCOMPLETE_DIR, name);
}

/** Records a new run (atomically), before its first fetch. */
export async function saveRunState(root: string, state: RunState): Promise<void> {
  const dir = runDir(root, state.name);
  makeDirectory(dir, 'the run folder');
  await writeFileAtomic(join(dir, RUN_FILE), `${JSON.stringify(state)}\n`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isInstant = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * What is wrong with the text of the run.json of folder `name`, or null when it is a RunState of
 * that run: valid JSON is not enough, a run resumed from a wrong shape would crawl or publish nonsense.
 */
function runStateProblem(text: string, name: string): string | null {
  if (text.trim() === '') return 'it is empty';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'it is not JSON: truncated or garbled';
  }
  if (!isObject(value)) return 'it is not a JSON object';
  if (value.name !== name) return `its "name" is not ${quoteInput(name)}, the name of its folder`;
  if (value.kind !== snapshotKindOf(name)) return `its "kind" is not ${quoteInput(snapshotKindOf(name))}`;
  if (!isInstant(value.startedAt) || !isInstant(value.weekStart))
    return '"startedAt" or "weekStart" is not a time';
  if (value.endedAt !== undefined && !isInstant(value.endedAt)) return '"endedAt" is not a time';
  if (value.strategy !== undefined && typeof value.strategy !== 'string') return '"strategy" is not a name';
  if (value.schemaVersion !== undefined && !Number.isInteger(value.schemaVersion))
    return '"schemaVersion" is not a whole number';
  const slots = value.kind === 'weekly' ? [0, 0] : [1, SLOTS_PER_WEEK - 1];
  if (!Number.isInteger(value.slot) || (value.slot as number) < slots[0] || (value.slot as number) > slots[1])
    return `its "slot" is not ${slots[0] === slots[1] ? slots[0] : `${slots[0]}..${slots[1]}`}`;
  if (
    !Array.isArray(value.seeds) ||
    value.seeds.length === 0 ||
    !value.seeds.every((u) => typeof u === 'string')
  )
    return 'its "seeds" are not a list of URLs';
  return null;
}

/** A run whose run.json could not be read, moved aside within `.incomplete/` for inspection. */
export interface DamagedRun {
  readonly name: string;
  readonly kind: SnapshotKind;
  /** The damaged run.json, as it was named. */
  readonly file: string;
  readonly problem: string;
  /** Where the run's folder (run.json and journal) now is; nothing reads it again. */
  readonly movedTo: string;
}

/** `<name>.damaged-<UTC time>`, not a snapshot name, so that no run is ever found in it again. */
function moveAside(base: string, name: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]|\.\d+/g, '');
  let movedTo = join(base, `${name}.damaged-${stamp}`);
  // the same run damaged twice at one instant of a logical clock
  for (let n = 2; existsSync(movedTo); n++) movedTo = join(base, `${name}.damaged-${stamp}-${n}`);
  try {
    renameSync(join(base, name), movedTo);
  } catch (cause) {
    const why = (cause as Error).message;
    throw new ObservatoryError('io', `cannot move the damaged run ${join(base, name)} aside: ${why}`, {
      cause,
    });
  }
  return movedTo;
}

/** A run found in `.incomplete/` as it is, without resuming or moving anything (what `status` shows). */
export interface RunFound {
  readonly name: string;
  /** Null for a folder whose name is no snapshot name. */
  readonly kind: SnapshotKind | null;
  /** Null when its run.json is damaged (then `problem` says how). */
  readonly startedAt: number | null;
  readonly problem: string | null;
}

/** `<name>.damaged-<stamp>`: where a damaged run was moved aside (moveAside). */
const DAMAGED = /\.damaged-[0-9TZ-]+$/;

/** Every run in `.incomplete/` (unfinished, and those moved aside as damaged), read only. */
export async function listRuns(root: string): Promise<{ runs: RunFound[]; movedAside: string[] }> {
  const base = join(root, INCOMPLETE_DIR);
  const names = await readdir(base).catch(() => [] as string[]);
  const runs: RunFound[] = [];
  for (const name of names) {
    const text = await readFile(join(base, name, RUN_FILE), 'utf8').catch(() => null);
    if (text === null || DAMAGED.test(name)) continue;
    const problem = runStateProblem(text, name);
    const startedAt = problem === null ? (JSON.parse(text) as RunState).startedAt : null;
    runs.push({ name, kind: snapshotKindOf(name), startedAt, problem });
  }
  return { runs, movedAside: names.filter((n) => DAMAGED.test(n)) };
}

/** Runs in progress of one kind: the one to resume, and those whose run.json was damaged. */
export interface UnfinishedRuns {
  readonly run: RunState | null;
  readonly damaged: readonly DamagedRun[];
}

/**
 * The unfinished run of a kind, if one was interrupted (at most one per kind runs at a time). A
 * run of that kind whose run.json is damaged (empty, torn, not what saveRunState writes) is moved
 * aside and returned in `damaged`: one damaged file must not block every later run, and its
 * journal, started from a URL list no longer known, cannot be resumed. Runs of another kind are
 * that kind's command's to find.
 */
export async function findUnfinishedRun(
  root: string,
  kind: SnapshotKind,
  clock: Clock,
): Promise<UnfinishedRuns> {
  const base = join(root, INCOMPLETE_DIR);
  if (!existsSync(base)) return { run: null, damaged: [] };
  const found: RunState[] = [];
  const damaged: DamagedRun[] = [];
  for (const name of await readdir(base)) {
    const file = join(base, name, RUN_FILE);
    // the folder name says the kind: a damaged file cannot
    if (snapshotKindOf(name) !== kind || !existsSync(file)) continue;
    const text = await readFile(file, 'utf8');
    const problem = runStateProblem(text, name);
    if (problem === null) found.push(JSON.parse(text) as RunState);
    else damaged.push({ name, kind, file, problem, movedTo: moveAside(base, name, clock.now()) });
  }
  return { run: found.sort((a, b) => a.startedAt - b.startedAt)[0] ?? null, damaged };
}

/**
 * Says what a damaged run cost, in the structured log and in one line on stderr (cron mails it):
 * `consequence` is what the command does instead of resuming it.
 */
export function reportDamagedRun(damaged: DamagedRun, consequence: string, logger: Logger): void {
  const { name, kind, file, problem, movedTo } = damaged;
  logger.warn({ run: name, kind, file, problem, movedTo }, `damaged run state moved aside; ${consequence}`);
  process.stderr.write(
    `observatory: ${file} is damaged (${problem}): ${kind} run ${name} moved aside to ${movedTo}; ${consequence}\n`,
  );
}

/** The root's run lock: one crawl (weekly, tick or expansion) at a time per snapshots folder. */
export function runLockPath(root: string): string {
  return join(root, INCOMPLETE_DIR, 'run.lock');
}

/** Runs `fn` holding the root's run lock. */
export async function withRunLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  makeDirectory(join(root, INCOMPLETE_DIR), 'the crawl folder');
  const release = await acquirePidLock(runLockPath(root), 'another observatory crawl');
  try {
    return await fn();
  } finally {
    await release();
  }
}
