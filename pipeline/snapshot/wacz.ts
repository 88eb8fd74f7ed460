import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ZipFile } from 'yazl';
import { cdxjEntries, recordLimits, responseBehind } from '../archive/index.ts';
import { ObservatoryError, replaceFile, SOFTWARE_NAME, SOFTWARE_VERSION } from '../core/index.ts';
import { listedWarcFiles, revisitReferents } from './archive-dependencies.ts';
import { cdxjLinesSql } from './capture-index.ts';
import { openDuckDb, sqlString } from './duckdb-session.ts';
import { corrupt } from './folder-error.ts';
import { type ManifestFile, readManifest, type SnapshotManifest } from './manifest.ts';
import { readingConfig } from './manifest-config.ts';
import { streamRows } from './reparse-rows.ts';
import { parquetFileName } from './schema.ts';

/** The WACZ version written (https://specs.webrecorder.net/wacz/1.1.1/). */
const WACZ_VERSION = '1.1.1';

/** The index's mark of a revisit record (cdxj-fields.ts). */
const REVISIT = '"mime":"warc/revisit"';

/**
 * The index files a snapshot folder publishes beside its WARC files, whichever form they take: a
 * plain CDXJ file (`index.cdxj`) or a compressed one (`.cdx.gz` blocks with their `.idx`), both
 * of which WACZ 1.1.1 and ReplayWeb.page read from `indexes/`. In name order, so that a `.idx`
 * comes after its blocks (ReplayWeb.page takes the form of the last index file it meets).
 */
function archiveIndexFiles(manifest: SnapshotManifest): string[] {
  return manifest.files
    .map((f) => f.name)
    .filter((name) => /\.(cdxj|cdx|cdx\.gz|idx)$/.test(name))
    .sort();
}

/** What a WACZ holds, besides its bytes. */
export interface WaczSummary {
  readonly snapshot: string;
  /** The snapshot's own WARC files, under `archive/`. */
  readonly warcFiles: readonly string[];
  /** Records of earlier snapshots its revisits refer to, copied into `archive/<name>-referred.warc.gz`. */
  readonly referredRecords: number;
  /** Lines of `pages/pages.jsonl` after its header: one per URL whose response the crawl archived. */
  readonly pages: number;
}

/** One file of the package: its path in the zip and where its bytes come from. */
interface Entry {
  readonly path: string;
  readonly source: () => Readable;
  /** The manifest's record of the file, when it is one of the folder's: the bytes must match it. */
  readonly listed?: ManifestFile;
}

/** A resource of datapackage.json (Frictionless Data, as WACZ 1.1.1 asks). */
interface Resource {
  readonly name: string;
  readonly path: string;
  readonly hash: string;
  readonly bytes: number;
}

/**
 * Writes a published snapshot's archive as one WACZ 1.1.1 file to `out` (docs/archive.md,
 * "Replay"): its WARC files under `archive/`, its index files under `indexes/`, the URLs it archived
 * in `pages/pages.jsonl`, `datapackage.json` with the SHA-256 and size of each, and
 * `datapackage-digest.json`. Zip entries are stored, not compressed (the WARC files are gzip
 * members already), so that a replay tool reads a record by a range request at its offset.
 *
 * A revisit refers to a record of an earlier snapshot; so that the package replays on its own, the
 * records its revisits refer to are copied, gzip member by member, into one more WARC file with an
 * index of its own (`indexes/referred.cdxj`): the package grows with the snapshot, never with the
 * snapshots before it, and no folder holds a second copy of an archive (the package is made on
 * demand). Memory stays flat: the referents are collected, deduplicated and sorted by DuckDB on
 * disk, and every file is streamed. Each of the folder's files is hashed as it is packaged and must
 * match the manifest, or the package fails `corrupt`.
 */
export async function writeWacz(folder: string, out: Writable): Promise<WaczSummary> {
  const manifest = await readManifest(folder);
  const warcFiles = listedWarcFiles(manifest);
  if (warcFiles.length === 0) {
    throw new ObservatoryError(
      'invalid_input',
      `${folder}: the snapshot keeps no archive (no WARC file), nothing to replay`,
    );
  }
  const scratch = await mkdtemp(join(tmpdir(), 'observatory-wacz-'));
  const session = await openDuckDb({ tempDirectory: scratch });
  try {
    const referred = await copyReferredRecords(folder, manifest, warcFiles, scratch, session.connection);
    const pages = await writePages(folder, join(scratch, 'pages.jsonl'), session.connection);
    const listed = new Map(manifest.files.map((f) => [f.name, f]));
    const fromFolder = (dir: string, name: string): Entry => ({
      path: `${dir}/${name}`,
      source: () => createReadStream(join(folder, name)),
      listed: listed.get(name),
    });
    const entries: Entry[] = [
      ...warcFiles.map((name) => fromFolder('archive', name)),
      ...(referred.file === null
        ? []
        : [
            {
              path: `archive/${referred.file}`,
              source: () => createReadStream(join(scratch, referred.file!)),
            },
            { path: 'indexes/referred.cdxj', source: () => createReadStream(join(scratch, 'referred.cdxj')) },
          ]),
      ...archiveIndexFiles(manifest).map((name) => fromFolder('indexes', name)),
      { path: 'pages/pages.jsonl', source: () => pagesStream(manifest.name, join(scratch, 'pages.jsonl')) },
    ];
    await zipEntries(folder, manifest, entries, out);
    return { snapshot: manifest.name, warcFiles, referredRecords: referred.records, pages };
  } finally {
    session.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Writes a folder's WACZ (writeWacz) to the file `path`, beside it first and renamed into place once
 * whole and synced (replaceFile): a package cut short is never left under its name.
 */
export async function writeWaczFile(folder: string, path: string): Promise<WaczSummary> {
  let summary: WaczSummary | undefined;
  await replaceFile(path, async (temporary) => {
    summary = await writeWacz(folder, createWriteStream(temporary));
  });
  return summary!;
}

/**
 * Copies the records the snapshot's revisits refer to (found through each revisit's head, as
 * `dependsOn` was) into `<scratch>/<name>-referred.warc.gz`, each once, and indexes that file into
 * `<scratch>/referred.cdxj`, sorted. A revisit whose record lies in no snapshot of `dependsOn` is
 * `corrupt`, as it is for every reader of the archive.
 */
async function copyReferredRecords(
  folder: string,
  manifest: SnapshotManifest,
  warcFiles: readonly string[],
  scratch: string,
  connection: DuckDBConnection,
): Promise<{ file: string | null; records: number }> {
  const limits = recordLimits(readingConfig(folder, manifest));
  const referents = await revisitReferents(folder, manifest);
  const pointers = join(scratch, 'referents.tsv');
  const list = await open(pointers, 'w');
  let referring = 0;
  try {
    for await (const line of cdxjEntries(folder, warcFiles, { notes: false, limits })) {
      if (!line.includes(REVISIT)) continue;
      const { filename, offset, length } = JSON.parse(line.slice(line.indexOf(' {') + 1));
      const referent = await responseBehind(folder, {
        filename,
        offset: Number(offset),
        length: Number(length),
      });
      if (referent === null) continue; // a 304 whose previous record was unknown refers to nothing
      const dir = referents(referent.pointer.filename);
      if (dir === null) {
        throw corrupt(
          folder,
          `a revisit in ${filename} at ${offset} refers to ${referent.pointer.filename}, which is in no snapshot it depends on`,
        );
      }
      const { pointer } = referent;
      await list.write(`${dir}\t${pointer.filename}\t${pointer.offset}\t${pointer.length}\n`);
      referring++;
    }
  } finally {
    await list.close();
  }
  // a first snapshot, or one whose every body changed, refers to nothing (and DuckDB reads no empty file)
  if (referring === 0) return { file: null, records: 0 };
  const file = `${manifest.name}-referred.warc.gz`;
  const copy = await open(join(scratch, file), 'w');
  let records = 0;
  try {
    const sql = `SELECT DISTINCT dir, filename, "offset", length FROM read_csv(${sqlString(pointers)},
        header = false, delim = '\\t', quote = '', escape = '',
        columns = {'dir': 'VARCHAR', 'filename': 'VARCHAR', 'offset': 'BIGINT', 'length': 'BIGINT'})
      ORDER BY filename, "offset"`;
    // in file order: each earlier WARC file is opened once
    const source = { path: '', handle: undefined as FileHandle | undefined };
    try {
      for await (const [dir, filename, offset, length] of streamRows(connection, sql)) {
        const path = join(dir as string, filename as string);
        if (source.handle === undefined || source.path !== path) {
          await source.handle?.close();
          // not closed twice by the finally below if the next open fails
          source.handle = undefined;
          source.handle = await open(path, 'r');
          source.path = path;
        }
        const bytes = Buffer.alloc(Number(length));
        const { bytesRead } = await source.handle.read(bytes, 0, bytes.length, Number(offset));
        if (bytesRead !== bytes.length)
          throw corrupt(
            dir as string,
            `${filename} ends before the record at ${offset} it holds (${length} bytes)`,
          );
        await copy.write(bytes);
        records++;
      }
    } finally {
      await source.handle?.close();
    }
  } finally {
    await copy.close();
  }
  const unsorted = join(scratch, 'referred.unsorted');
  const lines = await open(unsorted, 'w');
  try {
    for await (const line of cdxjEntries(scratch, [file], { notes: false, limits }))
      await lines.write(`${line}\n`);
  } finally {
    await lines.close();
  }
  await connection.run(`COPY (SELECT line FROM ${cdxjLinesSql(unsorted)} ORDER BY line)
    TO ${sqlString(join(scratch, 'referred.cdxj'))} (FORMAT csv, HEADER false, QUOTE '', DELIMITER '\\0')`);
  return { file, records };
}

/**
 * The pages of the package, one JSON line each (`{"url","ts"}`, ts in ISO 8601 as ReplayWeb.page
 * reads it): every URL whose final response this snapshot archived, at the time it was fetched, in
 * URL order. Returns how many.
 */
async function writePages(folder: string, file: string, connection: DuckDBConnection): Promise<number> {
  const documents = sqlString(join(folder, parquetFileName('documents')));
  const rows = `SELECT final_url AS url, strftime(min(fetched_at), '%Y-%m-%dT%H:%M:%S.%gZ') AS ts
    FROM read_parquet(${documents}) WHERE warc_filename IS NOT NULL AND downloaded_by = url
    GROUP BY final_url ORDER BY final_url`;
  await connection.run(`COPY (${rows}) TO ${sqlString(file)} (FORMAT json)`);
  const [[count]] = (await connection.runAndReadAll(`SELECT count(*) FROM (${rows})`)).getRows();
  return Number(count);
}

/** pages.jsonl: its header line (json-pages-1.0), then the pages DuckDB wrote. */
function pagesStream(name: string, file: string): Readable {
  const header = { format: 'json-pages-1.0', id: 'pages', title: `Linked Data Observatory snapshot ${name}` };
  const stream = new PassThrough();
  stream.write(`${JSON.stringify(header)}\n`);
  createReadStream(file)
    .on('error', (error) => stream.destroy(error))
    .pipe(stream);
  return stream;
}

/**
 * Streams the zip: each entry stored, hashed as it goes, then datapackage.json made of those hashes
 * and datapackage-digest.json, which the entries before them are complete by (yazl asks a lazy
 * entry for its stream only once the one before it is written).
 */
async function zipEntries(
  folder: string,
  manifest: SnapshotManifest,
  entries: readonly Entry[],
  out: Writable,
) {
  const zip = new ZipFile();
  // every entry carries the snapshot's end: the same folder always gives the same bytes
  const options = { compress: false, mtime: new Date(manifest.endedAt) };
  const resources: Resource[] = [];
  for (const entry of entries) {
    zip.addReadStreamLazy(entry.path, options, (cb) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const source = entry.source();
      source.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
      });
      source.on('end', () => resources.push(resource(entry.path, hash, bytes)));
      cb(null, source);
    });
  }
  const lazyText = (path: string, text: () => string) =>
    zip.addReadStreamLazy(path, options, (cb) => {
      try {
        const stream = new PassThrough();
        stream.end(text());
        cb(null, stream);
      } catch (error) {
        cb(error as Error, null as unknown as Readable);
      }
    });
  let datapackage = '';
  lazyText('datapackage.json', () => {
    for (const entry of entries) checkListed(folder, entry, resources);
    datapackage = `${JSON.stringify(
      {
        profile: 'data-package',
        wacz_version: WACZ_VERSION,
        title: `Linked Data Observatory snapshot ${manifest.name}`,
        // the snapshot's end, not the moment of packaging: the package of a folder is always the same
        created: manifest.endedAt,
        software: `${SOFTWARE_NAME}/${SOFTWARE_VERSION}`,
        resources,
      },
      null,
      2,
    )}\n`;
    return datapackage;
  });
  lazyText('datapackage-digest.json', () =>
    JSON.stringify({
      path: 'datapackage.json',
      hash: `sha256:${createHash('sha256').update(datapackage).digest('hex')}`,
    }),
  );
  // yazl's output is a PassThrough (typed as a plain ReadableStream): a failed entry ends it with its
  // error, so the pipeline rejects and `out` is destroyed
  const output = zip.outputStream as Readable;
  zip.on('error', (error: Error) => output.destroy(error));
  zip.end();
  await pipeline(output, out);
}

function resource(path: string, hash: Hash, bytes: number): Resource {
  return { name: path.slice(path.lastIndexOf('/') + 1), path, hash: `sha256:${hash.digest('hex')}`, bytes };
}

/** A file of the folder packaged with other bytes than its manifest says is `corrupt`. */
function checkListed(folder: string, entry: Entry, resources: readonly Resource[]): void {
  if (entry.listed === undefined) return;
  const packaged = resources.find((r) => r.path === entry.path);
  if (packaged?.hash !== `sha256:${entry.listed.sha256}` || packaged.bytes !== entry.listed.bytes) {
    throw corrupt(folder, `${entry.listed.name} is not the file its manifest lists (size and SHA-256)`);
  }
}

/** Whether every WARC file the manifest lists is in the folder (a portal build from fetched digests has none of them). */
export async function hasArchiveFiles(folder: string, manifest: SnapshotManifest): Promise<boolean> {
  const files = listedWarcFiles(manifest);
  if (files.length === 0) return false;
  const found = await Promise.all(
    files.map((f) =>
      stat(join(folder, f)).then(
        (s) => s.isFile(),
        () => false,
      ),
    ),
  );
  return found.every(Boolean);
}
