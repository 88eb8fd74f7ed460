import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CDX_GZ_FILE, IDX_FILE, readIdx, recordLimits, zipNumLines } from '../archive/index.ts';
import { cdxjLinesSql } from './capture-index.ts';
import { writeCdxjLines } from './cdxj-draft.ts';
import { corrupt } from './folder-error.ts';
import type { CheckContext } from './outputs.ts';

/** The rows the manifest gives a file of the index, which it must list. */
function listedRows(ctx: CheckContext, name: string): number | undefined {
  const file = ctx.manifest.files.find((f) => f.name === name);
  if (!file) throw corrupt(ctx.folder, `the manifest lists WARC files but not their index ${name}`);
  return file.rows;
}

/**
 * The ZipNum index of a folder of schema 6 against its secondary index and its manifest: every
 * block where index.idx says, whole, sorted, starting with the key its line names (zipNumLines),
 * as many lines and blocks as the manifest says. With `deep`, also against the WARC files: its
 * lines are, as a multiset, exactly the lines the indexer reads from the listed files (compared
 * by DuckDB on disk, so neither side is held in memory).
 */
export async function checkZipNumIndex(ctx: CheckContext, files: readonly string[]): Promise<void> {
  const lines = listedRows(ctx, CDX_GZ_FILE);
  const blocks = listedRows(ctx, IDX_FILE);
  const scratch = ctx.deep ? await mkdtemp(join(tmpdir(), 'verify-index-')) : null;
  try {
    const copy = scratch === null ? null : await open(join(scratch, 'index.cdxj'), 'w');
    let count = 0;
    let batch: string[] = [];
    try {
      for await (const line of zipNumLines(ctx.folder)) {
        count++;
        if (copy === null) continue;
        batch.push(line);
        if (batch.length === 1024) {
          await copy.write(`${batch.join('\n')}\n`);
          batch = [];
        }
      }
      if (batch.length > 0) await copy?.write(`${batch.join('\n')}\n`);
    } finally {
      await copy?.close();
    }
    if (count !== lines)
      throw corrupt(ctx.folder, `${CDX_GZ_FILE} has ${count} lines, the manifest says ${lines}`);
    const idx = (await readIdx(ctx.folder)).length;
    if (idx !== blocks)
      throw corrupt(ctx.folder, `${IDX_FILE} has ${idx} blocks, the manifest says ${blocks}`);
    if (scratch === null) return;
    const read = join(scratch, 'warc.cdxj');
    await writeCdxjLines({ dir: ctx.folder, files, limits: recordLimits(ctx.config) }, read);
    const differ = async (a: string, b: string) =>
      (
        await ctx.connection.runAndReadAll(`SELECT line FROM (SELECT line FROM ${cdxjLinesSql(a)}
          EXCEPT ALL SELECT line FROM ${cdxjLinesSql(b)}) LIMIT 1`)
      ).getRows()[0]?.[0] as string | undefined;
    const extra = await differ(join(scratch, 'index.cdxj'), read);
    if (extra !== undefined)
      throw corrupt(ctx.folder, `${CDX_GZ_FILE} lists a record the WARC files do not hold: ${extra}`);
    const missing = await differ(read, join(scratch, 'index.cdxj'));
    if (missing !== undefined)
      throw corrupt(ctx.folder, `${CDX_GZ_FILE} leaves out a record of the WARC files: ${missing}`);
  } finally {
    if (scratch !== null) await rm(scratch, { recursive: true, force: true });
  }
}
