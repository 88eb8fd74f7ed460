import { open, readFile, rm } from 'node:fs/promises';
import { ObservatoryError } from '../core/index.ts';
import { ioError } from './durable-fs.ts';

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
 * Takes the publish lock of a snapshot root: a file holding the owner's pid. One publisher at a time
 * keeps index.json updates serial. A lock left by a killed process (its pid is gone) is taken over,
 * so a publish killed with -9 can simply be run again. Returns the release function.
 */
export async function acquirePublishLock(path: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('create lock', path, error);
    }
    const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) {
      throw new ObservatoryError('locked', `another publish (pid ${owner}) holds ${path}`);
    }
    await rm(path, { force: true });
  }
  throw new ObservatoryError('locked', `could not take ${path}: another publisher keeps taking it`);
}
