import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inParallel, makeDirectory, PARALLEL_FILES } from '../core/index.ts';
import {
  type DescriptionPart,
  DescriptionWriter,
  describePart,
  expansionQuads,
  type Operators,
  seriesQuads,
  snapshotQuads,
} from './dataset-description.ts';
import type { ExpansionView, SnapshotView } from './portal-data.ts';

const WINDOW = 256;
/** The code that writes a part: a cached part is reused only when it is unchanged. */
const CODE = new URL('./dataset-description.ts', import.meta.url);

/**
 * Writes the VoID/DCAT description of `snapshots` and of the expansion crawls to `turtlePath` and
 * `jsonldPath`. Each snapshot's part is kept in `dir` under a hash of the snapshot and the base URL,
 * so a rebuild serialises the new snapshots' parts only and copies the others; parts no longer used
 * go. The expansion crawls' part is written anew: they are a few crawls, not years of weeks.
 */
export async function writeDescription(
  dir: string,
  paths: { readonly turtle: string; readonly jsonld: string },
  baseUrl: string,
  snapshots: readonly SnapshotView[],
  expansions: readonly ExpansionView[],
  operators: Operators,
): Promise<void> {
  makeDirectory(dir, 'the portal cache folder');
  const code = createHash('sha256')
    .update(await readFile(CODE))
    .digest('hex');
  const writer = await DescriptionWriter.open(paths.turtle, paths.jsonld);
  const used = new Set<string>();
  try {
    await writer.write(await describePart(seriesQuads(baseUrl, snapshots, operators)));
    const part = async (s: SnapshotView): Promise<DescriptionPart> => {
      const key = createHash('sha256').update(code).update(baseUrl).update(JSON.stringify(s)).digest('hex');
      const file = join(dir, `${key}.json`);
      used.add(`${key}.json`);
      try {
        return JSON.parse(await readFile(file, 'utf8'));
      } catch {
        const fresh = await describePart(snapshotQuads(baseUrl, s));
        await writeFile(file, JSON.stringify(fresh));
        return fresh;
      }
    };
    // read a window of parts at once, write them in order
    for (let i = 0; i < snapshots.length; i += WINDOW)
      for (const p of await inParallel(snapshots.slice(i, i + WINDOW), PARALLEL_FILES, part))
        await writer.write(p);
    await writer.write(await describePart(expansionQuads(baseUrl, expansions)));
  } finally {
    await writer.close();
  }
  for (const name of await readdir(dir)) if (!used.has(name)) await rm(join(dir, name), { force: true });
}
