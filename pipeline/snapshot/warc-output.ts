import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { cdxjEntries, readArchivedResponse, warcFilesIn } from '../archive/index.ts';
import { sqlString } from './duckdb-session.ts';
import { ioError, linkOrCopy } from './durable-fs.ts';
import type { CheckContext, SnapshotOutput, WriteContext, WrittenFile } from './outputs.ts';
import { corrupt } from './outputs.ts';
import { parquetFileName } from './schema.ts';

/** The CDXJ index of the snapshot's WARC files, beside them (pywb and ReplayWeb.page read it). */
export const CDXJ_FILE = 'index.cdxj';

/**
 * The CDXJ lines, sorted in byte order by DuckDB from a scratch file, so that the index of a large
 * crawl is never held in memory.
 */
async function writeSortedCdxj(ctx: WriteContext, files: readonly string[], target: string): Promise<number> {
  const unsorted = join(ctx.scratch, 'index.cdxj.unsorted');
  const handle = await open(unsorted, 'w');
  let lines = 0;
  try {
    for await (const line of cdxjEntries(ctx.work, files)) {
      await handle.write(`${line}\n`);
      lines++;
    }
  } finally {
    await handle.close();
  }
  // one column holding each whole line: no delimiter, quote or escape can occur in it
  await ctx.connection.run(`COPY (SELECT line FROM read_csv(${sqlString(unsorted)}, header = false,
      delim = '\\0', quote = '', escape = '', columns = {'line': 'VARCHAR'}) ORDER BY line)
    TO ${sqlString(target)} (FORMAT csv, HEADER false, QUOTE '', DELIMITER '\\0')`);
  return lines;
}

/** The WARC record at a documents.parquet pointer: a response record for the row's final URL. */
async function checkPointer(folder: string, row: unknown[]): Promise<void> {
  const [url, finalUrl, filename, offset, length] = row as [string, string, string, bigint, bigint];
  const pointer = { filename, offset: Number(offset), length: Number(length) };
  const response = await readArchivedResponse(folder, pointer).catch((error: unknown) => {
    throw corrupt(folder, `${url}: ${(error as Error).message}`);
  });
  if (response.url !== finalUrl) {
    throw corrupt(
      folder,
      `${url}: ${filename} at ${offset} is the response record of ${response.url}, not of ${finalUrl}`,
    );
  }
}

/**
 * The crawl's WARC files (docs/archive.md), linked into the folder as the crawl wrote them, and
 * their CDXJ index. Absent when the crawl kept no archive. `verify` opens the record every
 * documents.parquet pointer names.
 */
export const warcOutput: SnapshotOutput = {
  phase: 'archive',
  async write(ctx) {
    if (ctx.archive === null) return [];
    const names = warcFilesIn(ctx.archive);
    if (names.length === 0) return [];
    for (const name of names) {
      await linkOrCopy(join(ctx.archive, name), join(ctx.work, name)).catch((error: unknown) => {
        throw ioError('link', join(ctx.work, name), error);
      });
    }
    const rows = await writeSortedCdxj(ctx, names, join(ctx.work, CDXJ_FILE));
    return [...names.map((name): WrittenFile => ({ name })), { name: CDXJ_FILE, rows }];
  },
  async check(ctx: CheckContext) {
    if (ctx.version < 3) return;
    const documents = sqlString(join(ctx.folder, parquetFileName('documents')));
    const pointers = await ctx.connection.runAndReadAll(`SELECT url, final_url, warc_filename, warc_offset,
        warc_length FROM read_parquet(${documents}) WHERE warc_filename IS NOT NULL ORDER BY warc_filename, warc_offset`);
    const listed = new Set(ctx.manifest.files.map((f) => f.name));
    for (const row of pointers.getRows()) {
      if (!listed.has(row[2] as string))
        throw corrupt(ctx.folder, `${row[0]} points at ${row[2]}, which the manifest does not list`);
      await checkPointer(ctx.folder, row);
    }
  },
};
