import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectory } from '../core/index.ts';
import { hasArchiveFiles, readManifest, writeWaczFile } from '../snapshot/index.ts';
import { latestWeekly, type SnapshotView } from '../stats/index.ts';
import { REPLAY_DIR, REPLAY_INFO_FILE, type ReplayInfo, replayBundleFiles } from './replay-bundle.ts';
import type { SiteFile } from './site-sync.ts';

/**
 * The WACZ of the newest weekly snapshot (docs/portal.md, "Replay"), the one archive the portal
 * publishes: a build's cost stays that of one snapshot's archive whatever the history, and older
 * snapshots are packaged on demand (`observatory wacz`). Made once per snapshot into the cache
 * folder (the packages of earlier latest snapshots removed), and only when the build has the
 * snapshot's WARC files: a build from fetched digests (`--snapshots-url`) publishes none. Writes
 * `replay.json` into the data folder for the page either way.
 */
export async function replayArchive(
  root: string,
  cacheDir: string,
  dataDir: string,
  snapshots: readonly SnapshotView[],
): Promise<Map<string, SiteFile>> {
  const latest = snapshots.length > 0 ? latestWeekly(snapshots) : null;
  const folder = latest === null ? null : join(root, latest.name);
  const manifest = folder === null ? null : await readManifest(folder).catch(() => null);
  const files = new Map<string, SiteFile>();
  let info: ReplayInfo | null = null;
  if (latest !== null && folder !== null && manifest !== null && (await hasArchiveFiles(folder, manifest))) {
    const dir = join(cacheDir, 'replay');
    makeDirectory(dir, 'the portal cache folder');
    const name = `${latest.name}-${latest.manifestSha256.slice(0, 16)}.wacz`;
    const cached = join(dir, name);
    for (const other of await readdir(dir))
      if (other.endsWith('.wacz') && other !== name) await rm(join(dir, other), { force: true });
    if (!(await stat(cached).catch(() => null))) {
      await writeWaczFile(folder, cached);
    }
    info = {
      snapshot: latest.name,
      path: `${REPLAY_DIR}/${latest.name}.wacz`,
      bytes: (await stat(cached)).size,
    };
    files.set(info.path, { from: cached, identity: `wacz:${latest.name}:${latest.manifestSha256}` });
    for (const [path, f] of replayBundleFiles()) files.set(path, f);
  }
  await writeFile(join(dataDir, REPLAY_INFO_FILE), JSON.stringify(info));
  return files;
}
