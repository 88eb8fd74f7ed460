import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ObservatoryError } from './errors.ts';

const code = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/**
 * The failure of creating `path` one level at a time. Node's recursive mkdir reports ENOENT
 * whenever a level cannot be made, whatever the reason (a read-only file system included), so
 * the folder that could not be made and the real code are only known by trying each level.
 */
function levelFailure(path: string, fallback: unknown): { dir: string; error: unknown } {
  const missing: string[] = [];
  for (let dir = path; !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if (code(error) !== 'EEXIST') return { dir, error };
    }
  }
  return { dir: path, error: fallback };
}

const WHY: Record<string, (parent: string) => string> = {
  EROFS: (parent) => `${parent} is on a read-only file system (EROFS)`,
  EACCES: (parent) => `no permission to write in ${parent} (EACCES)`,
  ENOSPC: () => 'no space left on the device (ENOSPC)',
};

/**
 * Creates a folder and its parents; on failure an `io` error that says why (read-only, no
 * permission, disk full), not the ENOENT Node reports for all of them.
 */
export function makeDirectory(path: string, what = 'folder'): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (cause) {
    const { dir, error } = code(cause) === 'ENOENT' ? levelFailure(path, cause) : { dir: path, error: cause };
    const why = WHY[code(error) ?? '']?.(dirname(dir)) ?? (error as Error).message;
    throw new ObservatoryError('io', `cannot create ${what} ${path}: ${why}`, { cause: error });
  }
}
