import { closeSync, constants, fstatSync, openSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { ObservatoryError } from './errors.ts';

/**
 * Opened without blocking: a FIFO put where a file should be opens at once (its open would
 * otherwise wait for a writer forever), and is then refused by its fstat.
 */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** What a path is that is not a regular file, for the message. */
function whatItIs(s: Stats): string {
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a folder';
  return 'not a regular file';
}

function notRegular(path: string, s: Stats): ObservatoryError {
  return new ObservatoryError('corrupt', `${path} is ${whatItIs(s)}, not a regular file`);
}

/**
 * Opens a file a reader trusts to end: a published file, a WARC file. Whatever the path names
 * (itself or through a symbolic link) must be a regular file: a FIFO would hang the reader and a
 * device (/dev/zero) never end, so either is `corrupt`, found by stat before the open and by
 * fstat after it (the path may have changed in between). Errors of the file system itself
 * (ENOENT, EACCES) are thrown as Node gives them, for the caller to word.
 */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const before = await stat(path);
  if (!before.isFile()) throw notRegular(path, before);
  const handle = await open(path, READ_FLAGS);
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegular(path, opened);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** openRegularFile for synchronous readers: the file descriptor. */
export function openRegularFileSync(path: string): number {
  const before = statSync(path);
  if (!before.isFile()) throw notRegular(path, before);
  const fd = openSync(path, READ_FLAGS);
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw notRegular(path, opened);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The whole text of a regular file (see openRegularFile): a manifest, a checksum list, a catalogue. */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await openRegularFile(path);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
