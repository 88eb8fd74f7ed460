/**
 * A real disk that fills up, or is read-only, for the tests of what a command says then: a tmpfs
 * mounted on a fresh folder. Mounting needs root (CAP_SYS_ADMIN), which the tests have (CI and the
 * developers' machines run them as root, as test/distributed/postgres.ts says); without it the test
 * fails with mount's reason rather than pass having checked nothing.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** Where it is mounted. */
  readonly dir: string;
  /** Remounts it read-only: what was written stays readable, nothing can be written. */
  readOnly(): void;
  /** Remounts it with room for `size` (an operator freeing space), keeping what it holds. */
  grow(size: string): void;
  /** Unmounts it (at once, even while a file on it is still open) and removes the folder; safe to call twice. */
  remove(): void;
}

/** A tmpfs of `size` (mount's form: `1m`, `64k`) on a fresh folder. */
export function mountSmallDisk(size: string): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const why = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
    throw new Error(`these tests need a tmpfs (root, mount -t tmpfs): ${why}`);
  }
  let mounted = true;
  return {
    dir,
    readOnly: () => execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' }),
    grow: (size) => execFileSync('mount', ['-o', `remount,size=${size}`, dir], { stdio: 'pipe' }),
    remove() {
      if (!mounted) return;
      mounted = false;
      // lazy: a test that failed half-way may have left a file open on it
      execFileSync('umount', ['--lazy', dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the disk that holds `dir` with a file of zeros until no byte more fits (ENOSPC). */
export function fillDisk(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  // a last partial page may still take a few bytes
  const rest = openSync(join(dir, 'filler-rest'), 'w');
  try {
    for (;;) writeSync(rest, Buffer.alloc(1));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(rest);
  }
}
