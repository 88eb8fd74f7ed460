import { existsSync } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotKind } from '../core/index.ts';
import { acquirePidLock, makeDirectory, ObservatoryError } from '../core/index.ts';
import { INCOMPLETE_DIR } from '../snapshot/index.ts';

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
  /** Set once the crawl is complete, so that a publish rerun after a crash sees the same input. */
  readonly endedAt?: number;
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
  const tmp = join(dir, `${RUN_FILE}.tmp`);
  await writeFile(tmp, `${JSON.stringify(state)}\n`);
  await rename(tmp, join(dir, RUN_FILE));
}

/** The unfinished run of a kind, if one was interrupted (at most one per kind runs at a time). */
export async function findUnfinishedRun(root: string, kind: SnapshotKind): Promise<RunState | null> {
  const base = join(root, INCOMPLETE_DIR);
  if (!existsSync(base)) return null;
  const found: RunState[] = [];
  for (const name of await readdir(base)) {
    const file = join(base, name, RUN_FILE);
    if (!existsSync(file)) continue;
    let state: RunState;
    try {
      state = JSON.parse(await readFile(file, 'utf8')) as RunState;
    } catch {
      throw new ObservatoryError('corrupt', `${file} is damaged; remove ${join(base, name)} to start over`);
    }
    if (state.kind === kind) found.push(state);
  }
  return found.sort((a, b) => a.startedAt - b.startedAt)[0] ?? null;
}

/** Runs `fn` holding the root's run lock: one crawl (weekly or tick) at a time per snapshots folder. */
export async function withRunLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const base = join(root, INCOMPLETE_DIR);
  makeDirectory(base, 'the crawl folder');
  const release = await acquirePidLock(join(base, 'run.lock'), 'another observatory crawl');
  try {
    return await fn();
  } finally {
    await release();
  }
}
