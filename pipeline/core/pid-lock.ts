import { open, readFile, rm } from 'node:fs/promises';
import { ObservatoryError } from './errors.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes a lock file holding the owner's pid (one publisher per snapshot root, one crawl run at a
 * time). A lock left by a killed process (its pid is gone) is taken over, so a run killed with -9
 * can simply be run again. Returns the release function; `locked` when a live process holds it.
 */
export async function acquirePidLock(path: string, what = 'a lock'): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ObservatoryError('io', `cannot create lock ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) {
      throw new ObservatoryError('locked', `${what} is running already (pid ${owner} holds ${path})`);
    }
    await rm(path, { force: true });
  }
  throw new ObservatoryError('locked', `could not take ${path}: another process keeps taking it`);
}
