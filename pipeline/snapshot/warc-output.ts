import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readArchivedResponse, warcFilesIn } from '../archive/index.ts';
import { writeCdxjLines } from './cdxj-draft.ts';
import { sqlString } from './duckdb-session.ts';
import { ioError, linkOrCopy } from './durable-fs.ts';
import { corrupt } from './folder-error.ts';
import type { CheckContext, SnapshotOutput, WriteContext, WrittenFile } from './outputs.ts';
import { parquetFileName } from './schema.ts';

/** The CDXJ index of the snapshot's WARC files, beside them (pywb and ReplayWeb.page read it). */
export const CDXJ_FILE = 'index.cdxj';

/** The CDXJ lines of an archive's WARC files, unsorted, in a scratch file (see draftCdxj). */
export interface CdxjDraft {
  readonly file: string;
  readonly lines: number;
}

const DRAFT_WORKER = new URL('./cdxj-draft-worker.ts', import.meta.url);
/** The draft worker's old-generation heap: measured, 24 MiB fails on a 50,000-document week's archive. */
const DRAFT_HEAP_MB = 48;

/**
 * Writes the CDXJ lines of the archive's WARC files to a scratch file; null without an archive.
 * Lines come from the files' index notes where the crawl wrote them (1.4 s of CPU for a
 * 200,000-document week's archive); a file without usable notes is read, inflating every record
 * (15 s for that archive). So a publish starts the draft once staging is done, on a thread of its
 * own whose heap is capped (measured when every file was read: +90 MiB instead of +190 on the main
 * heap), and the archive output only sorts what it wrote. Should the worker run out of that heap
 * (24 MiB did on a 50,000-document week's archive; a single 96 MB record does not, bodies being
 * outside the heap), the lines are written again on the main thread. The WARC files are complete
 * once the crawl has ended.
 */
export async function draftCdxj(
  archive: string | null,
  scratch: string,
  heapMb = DRAFT_HEAP_MB,
): Promise<CdxjDraft | null> {
  if (archive === null) return null;
  const names = warcFilesIn(archive);
  if (names.length === 0) return null;
  const file = join(scratch, 'index.cdxj.unsorted');
  const lines = await draftInWorker(archive, names, file, heapMb).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw error;
    return writeCdxjLines(archive, names, file);
  });
  return { file, lines };
}

function draftInWorker(
  archive: string,
  names: readonly string[],
  file: string,
  heapMb: number,
): Promise<number> {
  const worker = new Worker(DRAFT_WORKER, {
    workerData: { archive, names, file },
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 4 },
  });
  return new Promise<number>((resolve, reject) => {
    let posted: number | null = null;
    worker.once('message', (count: number) => {
      posted = count;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (posted === null) reject(new Error(`the CDXJ indexer of ${archive} stopped (exit code ${code})`));
      else resolve(posted);
    });
  });
}

/** The drafted CDXJ lines sorted in byte order by DuckDB on disk, so a large index is never held in memory. */
async function writeSortedCdxj(ctx: WriteContext, draft: CdxjDraft, target: string): Promise<void> {
  // one column holding each whole line: no delimiter, quote or escape can occur in it
  await ctx.connection.run(`COPY (SELECT line FROM read_csv(${sqlString(draft.file)}, header = false,
      delim = '\\0', quote = '', escape = '', columns = {'line': 'VARCHAR'}) ORDER BY line)
    TO ${sqlString(target)} (FORMAT csv, HEADER false, QUOTE '', DELIMITER '\\0')`);
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
 * their CDXJ index (drafted by draftCdxj while the quads were sorted). Absent when the crawl kept no archive. `verify` opens the record every
 * documents.parquet pointer names.
 */
export const warcOutput: SnapshotOutput = {
  phase: 'archive',
  async write(ctx) {
    if (ctx.archive === null) return [];
    const names = warcFilesIn(ctx.archive);
    const draft = await ctx.cdxjDraft;
    if (names.length === 0 || draft === null) return [];
    for (const name of names) {
      await linkOrCopy(join(ctx.archive, name), join(ctx.work, name)).catch((error: unknown) => {
        throw ioError('link', join(ctx.work, name), error);
      });
    }
    await writeSortedCdxj(ctx, draft, join(ctx.work, CDXJ_FILE));
    return [...names.map((name): WrittenFile => ({ name })), { name: CDXJ_FILE, rows: draft.lines }];
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
