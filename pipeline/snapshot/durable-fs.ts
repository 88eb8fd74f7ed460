import { createHash } from 'node:crypto';
import { copyFile, link } from 'node:fs/promises';
import { ioError, openRegularFile } from '../core/index.ts';

// the disk's failures are coded, and files replaced atomically, in core, for every stage that writes
export { fsyncPath, ioError, isStorageFailure, replaceFile, writeFileAtomic } from '../core/index.ts';

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
