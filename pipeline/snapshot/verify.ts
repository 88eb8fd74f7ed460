import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StreamParser } from 'n3';
import type { Progress } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import { openDuckDb, sqlString } from './duckdb-session.ts';
import { hashFile, ioError } from './durable-fs.ts';
import { parseChecksums, readManifest, type SnapshotManifest } from './manifest.ts';
import {
  CHECKSUMS_FILE,
  isSchemaVersion,
  MANIFEST_FILE,
  NQUADS_FILE,
  parquetFileName,
  type SchemaVersion,
  SNAPSHOT_SCHEMA_VERSION,
  TABLE_NAMES,
  tableColumns,
} from './schema.ts';

/** What a successful verification checked. */
export interface VerifyReport {
  readonly name: string;
  readonly files: number;
  readonly bytes: number;
  readonly quads: number;
}

function corrupt(folder: string, problem: string): ObservatoryError {
  return new ObservatoryError('corrupt', `${folder}: ${problem}`);
}

async function checkFiles(folder: string, manifest: SnapshotManifest): Promise<number> {
  const sumsPath = join(folder, CHECKSUMS_FILE);
  const sums = parseChecksums(
    await readFile(sumsPath, 'utf8').catch((e) => {
      throw (e as NodeJS.ErrnoException).code === 'ENOENT'
        ? corrupt(folder, `${CHECKSUMS_FILE} is missing`)
        : ioError('read', sumsPath, e);
    }),
    sumsPath,
  );
  const expected = [...manifest.files.map((f) => f.name), MANIFEST_FILE];
  for (const name of expected) {
    if (!sums.has(name)) throw corrupt(folder, `${CHECKSUMS_FILE} does not list ${name}`);
  }
  if (sums.size !== expected.length)
    throw corrupt(folder, `${CHECKSUMS_FILE} lists files the manifest does not`);
  let bytes = 0;
  for (const file of [
    ...manifest.files,
    { name: MANIFEST_FILE, bytes: -1, sha256: sums.get(MANIFEST_FILE)! },
  ]) {
    const path = join(folder, file.name);
    const actual = await hashFile(path).catch((e) => {
      throw (e as ObservatoryError).cause &&
        ((e as ObservatoryError).cause as NodeJS.ErrnoException).code === 'ENOENT'
        ? corrupt(folder, `${file.name} is missing`)
        : e;
    });
    if (file.bytes >= 0 && actual.bytes !== file.bytes) {
      throw corrupt(folder, `${file.name} has ${actual.bytes} bytes, the manifest says ${file.bytes}`);
    }
    if (actual.sha256 !== file.sha256 || actual.sha256 !== sums.get(file.name)) {
      throw corrupt(folder, `${file.name} does not match its SHA-256 checksum`);
    }
    bytes += actual.bytes;
  }
  return bytes;
}

async function checkParquet(
  folder: string,
  manifest: SnapshotManifest,
  version: SchemaVersion,
): Promise<void> {
  const session = await openDuckDb();
  try {
    const { connection } = session;
    for (const table of TABLE_NAMES) {
      const name = parquetFileName(table);
      const listed = manifest.files.find((f) => f.name === name);
      if (!listed) throw corrupt(folder, `the manifest does not list ${name}`);
      const file = sqlString(join(folder, name));
      const [[rows]] = (
        await connection.runAndReadAll(`SELECT num_rows FROM parquet_file_metadata(${file})`)
      ).getRows();
      if (Number(rows) !== listed.rows) {
        throw corrupt(folder, `${name} has ${rows} rows, the manifest says ${listed.rows}`);
      }
      const columns = (
        await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${file})`)
      ).getRows();
      const actual = columns.map((c) => `${c[0]} ${c[1]}`).join(', ');
      const documented = tableColumns(table, version)
        .map((c) => `${c.name} ${c.type}`)
        .join(', ');
      if (actual !== documented)
        throw corrupt(folder, `${name} has columns (${actual}), expected (${documented})`);
      const kv = (
        await connection.runAndReadAll(
          `SELECT value::VARCHAR FROM parquet_kv_metadata(${file}) WHERE key::VARCHAR = 'observatory_schema_version'`,
        )
      ).getRows();
      if (kv.length !== 1 || kv[0][0] !== String(version)) {
        throw corrupt(folder, `${name} does not carry schema version ${version} in its metadata`);
      }
    }
    if (version >= 2) await checkStatementCounts(connection, folder);
  } finally {
    session.close();
  }
}

/**
 * Schema 2's identity between documents and quads: each graph's rows in quads.parquet are the
 * `statements` of the one row that downloaded it (downloaded_by = url, final_url = graph).
 */
async function checkStatementCounts(connection: DuckDBConnection, folder: string): Promise<void> {
  const documents = sqlString(join(folder, parquetFileName('documents')));
  const quads = sqlString(join(folder, parquetFileName('quads')));
  const [mismatch] = (
    await connection.runAndReadAll(`SELECT coalesce(o.final_url, g.graph), o.statements, g.statements
      FROM (SELECT final_url, statements FROM read_parquet(${documents}) WHERE downloaded_by = url AND statements > 0) AS o
      FULL JOIN (SELECT graph, count(*) AS statements FROM read_parquet(${quads}) GROUP BY graph) AS g
        ON g.graph = o.final_url
      WHERE o.statements IS DISTINCT FROM g.statements LIMIT 1`)
  ).getRows();
  if (mismatch) {
    throw corrupt(
      folder,
      `graph ${mismatch[0]} has ${mismatch[2] ?? 0} rows in quads.parquet, its downloading row says ${mismatch[1] ?? 0} statements`,
    );
  }
}

/** Parses data.nq.gz as N-Quads (n3's streaming parser) and returns how many quads it holds. */
async function countNquads(folder: string, total: number, progress?: Progress): Promise<number> {
  const path = join(folder, NQUADS_FILE);
  let quads = 0;
  let read = 0;
  let unnamed = 0;
  const source = createReadStream(path);
  source.on('data', (chunk) => {
    read += chunk.length;
    progress?.update({ done: read, total, extra: { quads } });
  });
  const sink = new Writable({
    objectMode: true,
    write(quad: { graph: { termType: string } }, _encoding, done) {
      quads++;
      if (quad.graph.termType !== 'NamedNode') unnamed++;
      done();
    },
  });
  try {
    await pipeline(source, createGunzip(), new StreamParser({ format: 'N-Quads' }), sink);
  } catch (error) {
    throw corrupt(folder, `${NQUADS_FILE} is not valid gzipped N-Quads: ${(error as Error).message}`);
  }
  progress?.finish({ done: read, total, extra: { quads } });
  if (unnamed > 0) throw corrupt(folder, `${NQUADS_FILE} has ${unnamed} quads outside a named graph`);
  return quads;
}

/**
 * Checks a published snapshot folder: the manifest names it, every file matches its size and
 * checksum (manifest and SHA256SUMS), every Parquet file has the documented schema of the folder's
 * schema version (1 or 2: older folders stay valid), that version and the manifest's row count,
 * (schema 2) each graph's quads are the statements of the row that downloaded it, and data.nq.gz parses as N-Quads with one quad per quads row.
 * Throws a `corrupt` error naming the first problem found.
 */
export async function verifySnapshot(folder: string, progress?: Progress): Promise<VerifyReport> {
  const manifest = await readManifest(folder);
  if (manifest.name !== basename(folder)) {
    throw corrupt(folder, `the manifest names snapshot ${manifest.name}, not the folder's name`);
  }
  if (!isSchemaVersion(manifest.schemaVersion)) {
    throw corrupt(
      folder,
      `schema version ${manifest.schemaVersion} is not one this software reads (1 to ${SNAPSHOT_SCHEMA_VERSION})`,
    );
  }
  const bytes = await checkFiles(folder, manifest);
  await checkParquet(folder, manifest, manifest.schemaVersion);
  const nquads = manifest.files.find((f) => f.name === NQUADS_FILE);
  if (!nquads) throw corrupt(folder, `the manifest does not list ${NQUADS_FILE}`);
  const quads = await countNquads(folder, nquads.bytes, progress);
  if (quads !== manifest.counts.statements || quads !== nquads.rows) {
    throw corrupt(
      folder,
      `${NQUADS_FILE} has ${quads} quads, the manifest says ${manifest.counts.statements}`,
    );
  }
  return { name: manifest.name, files: manifest.files.length + 2, bytes, quads };
}
