import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './pid-lock.ts';

/**
 * The name this process writes `path` under before renaming it into place (`<path>.tmp-<pid>`).
 * First removes the temporaries of `path` that processes killed between writing and renaming left;
 * a live process's are its own business. Best effort: a leftover costs a file name.
 */
export async function temporaryFor(path: string): Promise<string> {
  const prefix = `${basename(path)}.tmp-`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid)) {
      await rm(join(dirname(path), name), { force: true }).catch(() => {});
    }
  }
  return `${path}.tmp-${process.pid}`;
}
