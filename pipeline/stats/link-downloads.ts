import { copyFile, link, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { inParallel, PARALLEL_FILES } from './in-parallel.ts';
import type { SnapshotView } from './portal-data.ts';

/** The folder of the built site that mirrors the snapshots folder when downloads are served with the site. */
export const DOWNLOADS_DIR = 'snapshots';

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

/**
 * Puts every published file into `<out>/snapshots/<name>/` as a hard link (a copy across file
 * systems), so the built site serves its own downloads at the durable URLs it states, beside each
 * snapshot's page, without doubling the disk used.
 */
export async function linkDownloads(
  root: string,
  out: string,
  snapshots: readonly SnapshotView[],
): Promise<void> {
  await inParallel(snapshots, PARALLEL_FILES, async (s) => {
    const dir = join(out, DOWNLOADS_DIR, s.name);
    await mkdir(dir, { recursive: true });
    for (const f of s.files) await linkOrCopy(join(root, s.name, f.name), join(dir, f.name));
  });
}
