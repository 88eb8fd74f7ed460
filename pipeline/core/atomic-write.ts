import { open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ignoreFailure, withCleanup } from './errors.ts';
import { ioError } from './io-error.ts';
import { temporaryFor } from './temporary-files.ts';

/*
 * Write beside, then rename: the one way a file that readers may open at any moment is replaced
 * (catalogues, run state, kernel lists, caches' keys, downloads, the last observations, the site),
 * so that they see the old content or the new, never a mix, and a process killed in between leaves
 * a temporary (`<file>.tmp-<pid>`) the next writer of that file removes.
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

/**
 * Replaces `path` with what `write` puts into the temporary it is given, for writers that stream or
 * run elsewhere (DuckDB's COPY, a download, a hard link): beside `path`, so the rename is atomic,
 * then renamed over it; removed when `write` fails. The temporary's name ends in `.tmp-<pid>`, not
 * in the target's extension, so that no glob over a published folder picks up a half-written file:
 * DuckDB must be told the FORMAT. Durable (the default): the temporary is synced before the rename
 * and the folder after it; derived files rebuilt from the snapshots anyway (the site, the tables/
 * links) skip the two syncs, thousands of them in a rebuild.
 */
export async function replaceFile(
  path: string,
  write: (temporary: string) => Promise<void>,
  { durable = true }: { readonly durable?: boolean } = {},
): Promise<void> {
  const temporary = await temporaryFor(path);
  try {
    // a previous run of this very process (a pid reused after a kill) may have left it
    await rm(temporary, { force: true });
    await write(temporary);
    if (durable) await fsyncPath(temporary);
    await rename(temporary, path);
  } catch (error) {
    await ignoreFailure(() => rm(temporary, { force: true }));
    throw ioError('write', path, error);
  }
  if (durable) await fsyncPath(dirname(path));
}

/** Replaces `path` with `data` so that readers see the old or the new content, never a mix. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await replaceFile(path, (temporary) => writeFile(temporary, data));
}
