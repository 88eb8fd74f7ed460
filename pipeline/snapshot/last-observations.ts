import { createHash } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ignoreFailure, readRegularFile } from '../core/index.ts';
import type { CatalogueEntry } from './catalogue.ts';
import { listSnapshots, observationSnapshots } from './catalogue.ts';
import { sqlString } from './duckdb-session.ts';
import { hashFile, ioError, replaceFile, writeFileAtomic } from './durable-fs.ts';
import { readManifest } from './manifest.ts';
import { parquetFileName, readTableSql, SNAPSHOT_SCHEMA_VERSION, TABLES } from './schema.ts';

/**
 * Each URL's last observation, kept beside index.json so that finding the previous observation of a
 * crawl's URLs (change detection, conditional re-visits) reads one file whose size follows the
 * distinct URLs ever observed, not every snapshot of the history: a weekly crawl always holds URLs
 * never seen before, and looking for them snapshot by snapshot read the whole history at every
 * weekly publish (85 snapshots in week 20 of the lifetime benchmark).
 *
 * It is derived data, rebuilt from the snapshots whenever it does not match them: `last.json` names
 * the Parquet file and the observation snapshots it covers (their count and a digest of their names
 * and manifest hashes, in the catalogue's order). Snapshots published after it are read directly
 * by a reader and folded in by the next update, so a publish killed before the update loses nothing.
 */
export const LAST_OBSERVATIONS_DIR = '.observations';
const META_FILE = 'last.json';
const META_VERSION = 1;

/** The documents columns a last observation keeps: what its readers compare and re-visit with. */
export const LAST_OBSERVATION_COLUMNS = [
  'snapshot',
  'url',
  'final_url',
  'fetched_at',
  'status',
  'error',
  'content_type',
  'format',
  'bytes',
  'content_sha256',
  'graph_hash',
  'etag',
  'last_modified',
  'warc_filename',
  'warc_offset',
  'warc_length',
] as const;

/** Snapshots folded in one query when the file is rebuilt: bounds the files DuckDB opens at once. */
const FOLD_BATCH = 32;

interface Meta {
  readonly version: number;
  readonly schemaVersion: number;
  readonly file: string;
  readonly sha256: string;
  /** How many observation snapshots, oldest first in the catalogue, it covers. */
  readonly covers: number;
  /** SHA-256 over those snapshots' names and manifest hashes. */
  readonly coversDigest: string;
}

/** A snapshot to read: its catalogue name and its folder. */
export interface EarlierSnapshot {
  readonly name: string;
  readonly folder: string;
}

/** Digests of each prefix of `entries` (index i: the first i entries). */
function prefixDigests(entries: readonly CatalogueEntry[]): string[] {
  const hash = createHash('sha256');
  const digests = [hash.copy().digest('hex')];
  for (const e of entries) {
    hash.update(`${e.name} ${e.manifestSha256}\n`);
    digests.push(hash.copy().digest('hex'));
  }
  return digests;
}

async function readMeta(root: string): Promise<Meta | null> {
  let meta: Meta;
  try {
    meta = JSON.parse(await readRegularFile(join(root, LAST_OBSERVATIONS_DIR, META_FILE))) as Meta;
  } catch {
    // missing or unreadable: rebuilt from the snapshots
    return null;
  }
  const valid =
    meta?.version === META_VERSION &&
    meta.schemaVersion === SNAPSHOT_SCHEMA_VERSION &&
    typeof meta.file === 'string' &&
    /^last-[0-9a-f]{16}\.parquet$/.test(meta.file) &&
    Number.isInteger(meta.covers) &&
    typeof meta.coversDigest === 'string';
  return valid ? meta : null;
}

/** How many of `entries` (oldest first) the file covers, or null when it covers no prefix of them. */
function coveredPrefix(meta: Meta | null, entries: readonly CatalogueEntry[]): number | null {
  if (meta === null || meta.covers > entries.length) return null;
  return prefixDigests(entries.slice(0, meta.covers))[meta.covers] === meta.coversDigest ? meta.covers : null;
}

/** One snapshot's documents, in the current schema's shape, as LAST_OBSERVATION_COLUMNS. */
async function documentsSql(folder: string): Promise<string> {
  const manifest = await readManifest(folder);
  const table = readTableSql(
    join(folder, parquetFileName('documents')),
    'documents',
    manifest.schemaVersion,
    manifest,
  );
  return `SELECT ${LAST_OBSERVATION_COLUMNS.join(', ')} FROM (${table})`;
}

/** What findLastObservations read to answer. */
export interface FoundObservations {
  /** Snapshots whose documents were read one by one (published after the file, or all without it). */
  readonly readDirectly: readonly string[];
  /** Whether the rest came from the file. */
  readonly fromFile: boolean;
}

/** `CREATE TABLE name (...)` with the columns of a last observation, typed as documents.parquet types them. */
function createTableSql(name: string): string {
  const columns = LAST_OBSERVATION_COLUMNS.map((c) => {
    const spec = TABLES.documents.find((d) => d.name === c);
    if (spec === undefined) throw new Error(`documents has no column ${c}`);
    return `${c} ${spec.type}`;
  });
  return `CREATE TABLE ${name} (${columns.join(', ')})`;
}

/**
 * Fills table `target` (created here, LAST_OBSERVATION_COLUMNS) with the last observation of every
 * URL of table `wanted` (column `url`) among `earlier`: the observation snapshots of `root` to look
 * in, newest first. `beforeRead` is called with each snapshot before its documents are read.
 */
export async function findLastObservations(
  connection: DuckDBConnection,
  root: string,
  earlier: readonly EarlierSnapshot[],
  wanted: string,
  target: string,
  beforeRead: (snapshot: EarlierSnapshot) => Promise<void> = async () => {},
): Promise<FoundObservations> {
  const { newer, file } = await coverage(root, earlier);
  await connection.run(createTableSql(target));
  const unresolved = `${target}_unresolved`;
  await connection.run(`CREATE TEMP TABLE ${unresolved} AS SELECT DISTINCT url FROM ${wanted}`);
  const unresolvedLeft = async () =>
    Number((await connection.runAndReadAll(`SELECT count(*) FROM ${unresolved}`)).getRows()[0][0]) > 0;
  const resolve = async (source: string) => {
    await connection.run(`INSERT INTO ${target} SELECT * FROM (${source}) s
      WHERE s.url IN (SELECT url FROM ${unresolved})`);
    await connection.run(`DELETE FROM ${unresolved} WHERE url IN (SELECT url FROM ${target})`);
  };
  const readDirectly: string[] = [];
  const readEach = async (snapshots: readonly EarlierSnapshot[]) => {
    for (const snapshot of snapshots) {
      if (!(await unresolvedLeft())) return;
      await beforeRead(snapshot);
      readDirectly.push(snapshot.name);
      await resolve(await documentsSql(snapshot.folder));
    }
  };
  await readEach(file !== null ? newer : earlier);
  let fromFile = false;
  if (file !== null && (await unresolvedLeft())) {
    if (await intact(file)) {
      await resolve(`SELECT * FROM read_parquet(${sqlString(file.path)})`);
      fromFile = true;
    } else {
      await readEach(earlier.slice(newer.length));
    }
  }
  await connection.run(`DROP TABLE ${unresolved}`);
  return { readDirectly, fromFile };
}

/** The file and the snapshots of `earlier` (newest first) published after it; no file when it does not answer for the rest. */
async function coverage(
  root: string,
  earlier: readonly EarlierSnapshot[],
): Promise<{ newer: EarlierSnapshot[]; file: { path: string; sha256: string } | null }> {
  const catalogue = observationSnapshots(await listSnapshots(root));
  const meta = await readMeta(root);
  const covered = coveredPrefix(meta, catalogue) ?? 0;
  const coveredNames = new Set(catalogue.slice(0, covered).map((e) => e.name));
  const newer = earlier.filter((e) => !coveredNames.has(e.name));
  // the file answers for exactly the oldest of `earlier`, or not at all: never when it holds a
  // snapshot that `earlier` leaves out (a later one, or the one being published again)
  const useFile =
    meta !== null &&
    covered > 0 &&
    earlier.length - newer.length === covered &&
    earlier.slice(newer.length).every((e) => coveredNames.has(e.name));
  return {
    newer,
    file: useFile ? { path: join(root, LAST_OBSERVATIONS_DIR, meta.file), sha256: meta.sha256 } : null,
  };
}

/** Derived data that a crawl builds on: a file changed since it was written is not read. */
async function intact(file: { path: string; sha256: string }): Promise<boolean> {
  return (await hashFile(file.path).catch(() => null))?.sha256 === file.sha256;
}

/**
 * Each URL's last observation among `earlier` (newest first) as sources to query many times over a
 * crawl: SELECTs of LAST_OBSERVATION_COLUMNS, newest first (a URL's last observation is its row in
 * the first source that has one): the snapshots published after the file, then the file. Null when
 * the file does not answer for the older ones (missing, damaged, or behind a snapshot published out
 * of order): every query would then read every snapshot of the history.
 */
export async function lastObservationSources(
  root: string,
  earlier: readonly EarlierSnapshot[],
): Promise<string[] | null> {
  const { newer, file } = await coverage(root, earlier);
  if (file === null || !(await intact(file))) return null;
  return [
    ...(await Promise.all(newer.map((e) => documentsSql(e.folder)))),
    `SELECT * FROM read_parquet(${sqlString(file.path)})`,
  ];
}

/**
 * Brings the file up to date with the observation snapshots of `root`'s catalogue: the snapshots
 * published since it was written are folded in (each URL's row of the newest snapshot that has it
 * replaces the file's), or, when the file matches no prefix of the catalogue (missing, damaged,
 * written by another schema, or a snapshot published out of order), it is built again from all of
 * them. Called after every publish; a failure leaves the file behind, which readers then pass by.
 */
export async function updateLastObservations(connection: DuckDBConnection, root: string): Promise<void> {
  const catalogue = observationSnapshots(await listSnapshots(root));
  const meta = await readMeta(root);
  const dir = join(root, LAST_OBSERVATIONS_DIR);
  let base: string | null = null;
  let covered = coveredPrefix(meta, catalogue) ?? 0;
  if (meta !== null && covered > 0) {
    const file = join(dir, meta.file);
    if ((await hashFile(file).catch(() => null))?.sha256 === meta.sha256) base = file;
    else covered = 0;
  }
  if (catalogue.length === 0) return;
  if (base !== null && covered === catalogue.length) return await removeOthers(dir, meta!.file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw ioError('create', dir, error);
  }
  const digests = prefixDigests(catalogue);
  const fileName = `last-${digests[catalogue.length].slice(0, 16)}.parquet`;
  const path = join(dir, fileName);
  await replaceFile(path, async (temporary) => {
    // oldest first, a batch at a time: each step keeps the rows of URLs the batch did not observe;
    // the last step writes the temporary, those before it files beside it that removeOthers takes
    for (let start = covered; start < catalogue.length; start += FOLD_BATCH) {
      const batch = catalogue.slice(start, start + FOLD_BATCH);
      const parts = await Promise.all(
        batch.map(
          async (e, i) => `SELECT *, ${i} AS position FROM (${await documentsSql(join(root, e.name))})`,
        ),
      );
      const latest = `SELECT * EXCLUDE (position) FROM (${parts.join(' UNION ALL ')})
        QUALIFY row_number() OVER (PARTITION BY url ORDER BY position DESC) = 1`;
      const kept =
        base === null
          ? ''
          : ` UNION ALL SELECT * FROM read_parquet(${sqlString(base)})
              WHERE url NOT IN (SELECT url FROM (${parts.join(' UNION ALL ')}))`;
      const next = start + FOLD_BATCH >= catalogue.length ? temporary : `${temporary}.${start}`;
      await connection.run(`COPY (SELECT * FROM (${latest}${kept}) ORDER BY url)
        TO ${sqlString(next)} (FORMAT parquet, COMPRESSION zstd)`);
      base = next;
    }
  });
  const written: Meta = {
    version: META_VERSION,
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    file: fileName,
    sha256: (await hashFile(path)).sha256,
    covers: catalogue.length,
    coversDigest: digests[catalogue.length],
  };
  await writeFileAtomic(join(dir, META_FILE), `${JSON.stringify(written, null, 2)}\n`);
  await removeOthers(dir, fileName);
}

/**
 * Removes what last.json does not name: earlier files, intermediate steps and temporaries, also
 * those of an update that was killed (one writer at a time: the run lock).
 */
async function removeOthers(dir: string, file: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name !== META_FILE && name !== file) await ignoreFailure(() => rm(join(dir, name), { force: true }));
  }
}
