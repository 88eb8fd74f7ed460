import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ObservatoryError } from './errors.ts';

/** Whether a process with this pid runs (as anyone's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When the process with this pid started (Linux: clock ticks since boot, /proc/<pid>/stat field 22);
 * null where that cannot be read. A pid names a process only together with its start: pids are
 * reused, and a suite that starts thousands of processes on a pid_max of 32,768 reuses them soon.
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: fields 3 on follow the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process a lock names still runs: its pid is alive and, where the lock says when it started, it started then. */
function holderAlive(pid: number, start: string | null): boolean {
  if (!processAlive(pid)) return false;
  return start === null || processStart(pid) === null || processStart(pid) === start;
}

function ioFailure(doing: string, path: string, error: unknown): ObservatoryError {
  return new ObservatoryError('io', `cannot ${doing} lock ${path}: ${(error as Error).message}`, {
    cause: error,
  });
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * A lock file as read: its owner's pid (NaN when unreadable), the owner's start (null in locks
 * written before it was kept, or where it cannot be read) and its inode, which names this very file.
 */
interface Held {
  readonly text: string;
  readonly pid: number;
  readonly start: string | null;
  readonly ino: number;
}

/** Reads the lock at `path`; null when there is none (it was released meanwhile). */
async function readHeld(path: string): Promise<Held | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    throw ioFailure('read', path, error);
  }
  try {
    const { ino } = await handle.stat();
    const text = await handle.readFile('utf8');
    const [pid, start] = text.trim().split(/\s+/);
    return { text, pid: Number.parseInt(pid, 10), start: start ?? null, ino };
  } finally {
    await handle.close();
  }
}

/** A takeover is two system calls; a claim this old was left by a process killed between them. */
const ABANDONED_CLAIM_MS = 60_000;

/**
 * Removes the stale lock `held`, racing other processes that found it stale too. Whoever links the
 * claim name (derived from the lock's inode) first may remove the lock, and only after checking
 * that the claim is that very file (same inode, same content): a process that read the stale lock
 * long ago finds the lock replaced, removes its claim and tries again, and never deletes a live lock.
 */
async function removeStale(path: string, held: Held): Promise<void> {
  const claim = `${path}.takeover-${held.ino}`;
  try {
    await link(path, claim);
  } catch (error) {
    if (code(error) === 'ENOENT') return; // the stale lock is gone already
    if (code(error) !== 'EEXIST') throw ioFailure('take over', path, error);
    // file times are the wall clock's: the claim's age is read on it, never on a run's virtual clock
    const since = await stat(claim).then(
      (s) => Date.now() - s.ctimeMs,
      () => 0,
    );
    if (since > ABANDONED_CLAIM_MS) await rm(claim, { force: true });
    return;
  }
  try {
    const claimed = await readHeld(claim);
    if (claimed?.ino === held.ino && claimed.text === held.text) await unlink(path);
  } catch (error) {
    if (code(error) !== 'ENOENT') throw ioFailure('take over', path, error);
  } finally {
    await rm(claim, { force: true });
  }
}

/**
 * Removes what killed processes left beside the lock: their own files (`<lock>.<pid>-<hex>`, a
 * process killed between writing it and removing it) and takeover claims (`<lock>.takeover-<ino>`,
 * killed between linking and removing one). Run by the holder only: a contender still trying has a
 * live pid, and a claim on another inode than the held lock's can no longer remove anything, since
 * `removeStale` checks the claim's inode. Best effort: a leftover costs a file name, not the lock.
 */
async function sweepLeftovers(path: string, mine: string): Promise<void> {
  const base = `${basename(path)}.`;
  try {
    const { ino } = await stat(mine);
    for (const name of await readdir(dirname(path))) {
      if (!name.startsWith(base) || name === basename(mine)) continue;
      const rest = name.slice(base.length);
      const owner = /^(\d+)-[0-9a-f]+$/.exec(rest)?.[1];
      const claimed = /^takeover-(\d+)$/.exec(rest)?.[1];
      const dead = owner !== undefined && !processAlive(Number(owner));
      if (dead || (claimed !== undefined && claimed !== String(ino))) {
        await rm(join(dirname(path), name), { force: true });
      }
    }
  } catch {
    // the lock is held either way; the next holder sweeps again
  }
}

/** Who holds the lock at `path`, and whether that process still runs; null when nothing holds it. */
export async function lockHolder(
  path: string,
): Promise<{ readonly pid: number; readonly alive: boolean } | null> {
  const held = await readHeld(path);
  if (!held) return null;
  return { pid: held.pid, alive: Number.isInteger(held.pid) && holderAlive(held.pid, held.start) };
}

/**
 * Takes a lock file holding the owner's pid and start (one publisher per snapshot root, one crawl
 * run at a time). The lock appears complete in one step (the pid is written to a file of our own, then
 * hard-linked to the lock's name, which fails if it exists), so nobody ever reads it empty. A lock
 * left by a killed process (its pid is gone, or now names a process that started later) is taken over, so a run killed with -9 can simply be
 * run again; when several processes find it stale at once, exactly one of them gets the lock. The
 * holder removes the files killed processes left beside the lock.
 * Returns the release function; `locked` when a live process holds it.
 */
export async function acquirePidLock(path: string, what = 'a lock'): Promise<() => Promise<void>> {
  const mine = `${path}.${process.pid}-${randomBytes(6).toString('hex')}`;
  const start = processStart(process.pid);
  try {
    await writeFile(mine, `${process.pid}${start === null ? '' : ` ${start}`}\n`, { flag: 'wx' });
  } catch (error) {
    throw ioFailure('create', path, error);
  }
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await link(mine, path);
        await sweepLeftovers(path, mine);
        return async () => {
          // remove the lock only while it is still ours
          if ((await readHeld(path))?.pid === process.pid) await rm(path, { force: true });
        };
      } catch (error) {
        if (code(error) !== 'EEXIST') throw ioFailure('create', path, error);
      }
      const held = await readHeld(path);
      if (!held) continue;
      // our own pid in a lock we are only now taking is a dead process's (pids are reused, in containers
      // often at once)
      if (Number.isInteger(held.pid) && held.pid !== process.pid && holderAlive(held.pid, held.start)) {
        throw new ObservatoryError('locked', `${what} is running already (pid ${held.pid} holds ${path})`);
      }
      await removeStale(path, held);
    }
    throw new ObservatoryError('locked', `could not take ${path}: another process keeps taking it`);
  } finally {
    await rm(mine, { force: true });
  }
}
