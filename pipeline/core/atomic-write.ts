import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ignoreFailure, withCleanup } from './errors.ts';
import { ioError } from './io-error.ts';
import { temporaryFor } from './temporary-files.ts';

/*
 * Write beside, then rename: the one way a file that readers may open at any moment is replaced
 * (catalogues, run state, kernel lists, caches' keys), so that they see the old content or the
 * new, never a mix, and a process killed in between leaves a temporary the next writer removes.
 */

/** Flushes a file or a directory entry list to disk, so that a rename after it publishes complete data. */
export async function fsyncPath(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    // a close that fails after a failed sync must not hide it
    await withCleanup(
      () => handle.sync(),
      () => handle.close(),
    );
  } catch (error) {
    throw ioError('sync', path, error);
  }
}

/** Replaces `path` with `data` so that readers see the old or the new content, never a mix. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const temp = await temporaryFor(path);
  try {
    const handle = await open(temp, 'w');
    await withCleanup(
      async () => {
        await handle.writeFile(data);
        await handle.sync();
      },
      () => handle.close(),
    );
    await rename(temp, path);
  } catch (error) {
    await ignoreFailure(() => rm(temp, { force: true }));
    throw ioError('write', path, error);
  }
  await fsyncPath(dirname(path));
}
