import { createHash } from 'node:crypto';
import { copyFile, link, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ignoreFailure, ioError, openRegularFile, temporaryFor, withCleanup } from '../core/index.ts';

// the disk's failures are coded in core (io-error.ts), for every stage that writes
export { ioError, isStorageFailure } from '../core/index.ts';

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

/**
 * Size and SHA-256 (hex) of a file, streamed. Only a regular file is read (openRegularFile): a FIFO
 * or a device in its place is `corrupt`, never read forever.
 */
export async function hashFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of (await openRegularFile(path)).createReadStream()) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (error) {
    throw ioError('read', path, error);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** A hard link of `from` at `to` (a copy across file systems). */
export async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // another file system (or one without hard links): copy instead
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
    await copyFile(from, to);
  }
}
