import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import {
  CDX_GZ_FILE,
  IDX_FILE,
  type RecordLimits,
  type RevisitReferents,
  readArchivedResponse,
  recordLimits,
  writeZipNum,
} from '../archive/index.ts';
import { type ErrorCode, ObservatoryError } from '../core/index.ts';
import { listedWarcFiles, revisitReferents } from './archive-dependencies.ts';
import { cdxjLinesSql } from './capture-index.ts';
import { type DraftedLines, writeCdxjLines } from './cdxj-draft.ts';
import { sqlString } from './duckdb-session.ts';
import { ioError, linkOrCopy } from './durable-fs.ts';
import { corrupt } from './folder-error.ts';
import { checkZipNumIndex } from './index-check.ts';
import type { CheckContext, SnapshotOutput, WriteContext, WrittenFile } from './outputs.ts';
import { parquetFileName } from './schema.ts';
import { checkWarcRecords } from './warc-records-check.ts';

/**
 * The WARC files a publish links in and indexes: a folder and which of its files. A crawl's are
 * every `.warc.gz` file of its run folder (warcFilesIn), their index notes read where they cover a
 * file; reparse's are those a published folder's manifest lists, read whole within `limits` and
 * never from notes (a file the manifest does not list, notes included, is nothing the folder holds).
 */
export interface ArchiveSource {
  readonly dir: string;
  readonly files: readonly string[];
  /** Set for a published folder: no index notes; each file whole gzip members within these limits. */
  readonly limits?: RecordLimits;
}

/** The CDXJ lines of an archive's WARC files, unsorted, in a scratch file (see draftCdxj). */
export interface CdxjDraft {
  readonly file: string;
  readonly lines: number;
  /** The snapshots whose WARC records its revisits refer to: the manifest's `dependsOn`. */
  readonly dependsOn: readonly string[];
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
 * once the crawl has ended. A published folder's files (reparse) must be whole within the archive's
 * limits, or the draft fails `corrupt` (cdxjEntries).
 */
export async function draftCdxj(
  archive: ArchiveSource | null,
  scratch: string,
  heapMb = DRAFT_HEAP_MB,
): Promise<CdxjDraft | null> {
  if (archive === null || archive.files.length === 0) return null;
  const file = join(scratch, 'index.cdxj.unsorted');
  const drafted = await draftInWorker(archive, file, heapMb).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw error;
    return writeCdxjLines(archive, file);
  });
  return { file, ...drafted };
}

/** What the draft worker posts: its lines, or the coded error it stopped with (cdxj-draft-worker.ts). */
type DraftMessage =
  | DraftedLines
  | { readonly failed: { readonly code: ErrorCode; readonly message: string } };

function draftInWorker(archive: ArchiveSource, file: string, heapMb: number): Promise<DraftedLines> {
  const worker = new Worker(DRAFT_WORKER, {
    workerData: { archive, file },
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 4 },
  });
  return new Promise<DraftedLines>((resolve, reject) => {
    let posted: DraftMessage | null = null;
    worker.once('message', (message: DraftMessage) => {
      posted = message;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (posted === null)
        reject(new Error(`the CDXJ indexer of ${archive.dir} stopped (exit code ${code})`));
      else if ('failed' in posted) reject(new ObservatoryError(posted.failed.code, posted.failed.message));
      else resolve(posted);
    });
  });
}

/**
 * The drafted CDXJ lines sorted in byte order by DuckDB on disk, then written block by block as
 * the folder's ZipNum index (zipnum.ts), so a large index is never held in memory.
 */
async function writeIndex(ctx: WriteContext, draft: CdxjDraft): Promise<{ lines: number; blocks: number }> {
  const sorted = join(ctx.scratch, 'index.cdxj.sorted');
  await ctx.connection.run(`COPY (SELECT line FROM ${cdxjLinesSql(draft.file)} ORDER BY line)
    TO ${sqlString(sorted)} (FORMAT csv, HEADER false, QUOTE '', DELIMITER '\\0')`);
  const reader = createInterface({ input: createReadStream(sorted), crlfDelay: Number.POSITIVE_INFINITY });
  // readline drops the lines it reads before an iterator is attached: attach it before any await
  const lines = reader[Symbol.asyncIterator]();
  try {
    return await writeZipNum({ [Symbol.asyncIterator]: () => lines }, ctx.work);
  } finally {
    reader.close();
    await rm(sorted, { force: true });
  }
}

/**
 * The WARC record at a documents.parquet pointer: a response record for the row's final URL, read
 * within the crawl's record limits, or a revisit that resolves to one (read-response.ts). A pointer
 * that is not one (out of the file, negative, longer than any record the crawl wrote) is `corrupt`
 * naming the row.
 */
async function checkPointer(
  folder: string,
  row: unknown[],
  limits: RecordLimits,
  referents: RevisitReferents,
): Promise<void> {
  const [url, finalUrl, filename, offset, length] = row as [string, string, string, bigint, bigint];
  const pointer = { filename, offset: Number(offset), length: Number(length) };
  const response = await readArchivedResponse(folder, pointer, limits, { referents }).catch(
    (error: unknown) => {
      throw corrupt(folder, `${url}: ${(error as Error).message}`);
    },
  );
  if (response.url !== finalUrl) {
    throw corrupt(
      folder,
      `${url}: ${filename} at ${offset} is the response record of ${response.url}, not of ${finalUrl}`,
    );
  }
}

/**
 * The crawl's WARC files (docs/archive.md), linked into the folder as the crawl wrote them, and
 * their CDXJ index as a ZipNum cluster (drafted by draftCdxj while the quads were sorted). Absent when the crawl kept no
 * archive. `verify` checks that the snapshots the manifest says its revisits depend on are there
 * (revisitReferents), opens the record every documents.parquet pointer names, through a revisit
 * to the record it refers to, and (schema 6) reads the index against its secondary index; `verify
 * --deep` reads every record of every file (checkWarcRecords) and the index against them
 * (checkZipNumIndex).
 */
export const warcOutput: SnapshotOutput = {
  phase: 'archive',
  async write(ctx) {
    if (ctx.archive === null) return [];
    const names = ctx.archive.files;
    const draft = await ctx.cdxjDraft;
    if (names.length === 0 || draft === null) return [];
    for (const name of names) {
      await linkOrCopy(join(ctx.archive.dir, name), join(ctx.work, name)).catch((error: unknown) => {
        throw ioError('link', join(ctx.work, name), error);
      });
    }
    const index = await writeIndex(ctx, draft);
    return [
      ...names.map((name): WrittenFile => ({ name })),
      { name: CDX_GZ_FILE, rows: index.lines },
      { name: IDX_FILE, rows: index.blocks },
    ];
  },
  async check(ctx: CheckContext) {
    if (ctx.version < 3) return;
    const limits = recordLimits(ctx.config);
    const documents = sqlString(join(ctx.folder, parquetFileName('documents')));
    const pointers = await ctx.connection.runAndReadAll(`SELECT url, final_url, warc_filename, warc_offset,
        warc_length FROM read_parquet(${documents}) WHERE warc_filename IS NOT NULL ORDER BY warc_filename, warc_offset`);
    const files = listedWarcFiles(ctx.manifest);
    const listed = new Set(files);
    const referents = await revisitReferents(ctx.folder, ctx.manifest);
    for (const row of pointers.getRows()) {
      if (!listed.has(row[2] as string))
        throw corrupt(ctx.folder, `${row[0]} points at ${row[2]}, which the manifest does not list`);
      await checkPointer(ctx.folder, row, limits, referents);
    }
    if (ctx.deep) await checkWarcRecords(ctx, files, referents);
    // after the records: a damaged record is named as such, not as an index line without its record
    if (ctx.version >= 6 && files.length > 0) await checkZipNumIndex(ctx, files);
  },
};
