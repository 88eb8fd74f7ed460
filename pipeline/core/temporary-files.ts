import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './pid-lock.ts';

/**
 * The name this process writes `path` under before renaming it into place (`<path>.tmp-<pid>`).
 * First removes the temporaries of `path` that processes killed between writing and renaming left;
 * a live process's are its own business. `<path>.tmp`, which versions before one temporary name
 * left (the coordinator's crawl id, written under the run lock), is removed too. Best effort: a
 * leftover costs a file name.
 */
export async function temporaryFor(path: string): Promise<string> {
  const prefix = `${basename(path)}.tmp`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const pid = rest.startsWith('-') ? Number(rest.slice(1)) : Number.NaN;
    const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
    if (rest === '' || dead) await rm(join(dirname(path), name), { force: true }).catch(() => {});
  }
  return `${path}.tmp-${process.pid}`;
}
