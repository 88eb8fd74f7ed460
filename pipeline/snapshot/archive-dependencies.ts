import { dirname, join } from 'node:path';
import { type RevisitReferents, warcFilePrefix } from '../archive/index.ts';
import { quoteInput } from '../core/index.ts';
import { corrupt } from './folder-error.ts';
import { readManifest, type SnapshotManifest } from './manifest.ts';
import { isSnapshotName } from './snapshot-name.ts';

/** The WARC files a manifest lists, in name order (their order within each prefix). */
export function listedWarcFiles(manifest: SnapshotManifest): string[] {
  return manifest.files
    .map((f) => f.name)
    .filter((name) => name.endsWith('.warc.gz'))
    .sort();
}

/**
 * Where the records a folder's revisits refer to may lie (docs/archive.md, "Revisits"): the
 * snapshots its manifest's `dependsOn` names, beside it, each of which must be there with a
 * manifest of its name, and there only the WARC files that manifest lists. A dependency that is not
 * there (a folder later snapshots depend on was removed or moved) is `corrupt`, naming it.
 */
export async function revisitReferents(
  folder: string,
  manifest: SnapshotManifest,
): Promise<RevisitReferents> {
  const root = dirname(folder);
  const files = new Map<string, ReadonlySet<string>>();
  for (const name of manifest.dependsOn ?? []) {
    if (typeof name !== 'string' || !isSnapshotName(name)) {
      throw corrupt(
        folder,
        `its manifest depends on ${quoteInput(String(name))}, which is not a snapshot name`,
      );
    }
    const dependency = await readManifest(join(root, name)).catch(() => null);
    if (dependency?.name !== name) {
      throw corrupt(
        folder,
        `it depends on snapshot ${name} (its revisit records refer to records archived there), which is not in ${root}: was it removed?`,
      );
    }
    files.set(name, new Set(listedWarcFiles(dependency)));
  }
  return (filename) => {
    const name = warcFilePrefix(filename);
    return name !== null && files.get(name)?.has(filename) ? join(root, name) : null;
  };
}
