import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ObservatoryError, Progress } from '../core/index.ts';
import { openDuckDb } from './duckdb-session.ts';
import { hashFile, ioError } from './durable-fs.ts';
import { corrupt } from './folder-error.ts';
import { parseChecksums, readManifest, type SnapshotManifest } from './manifest.ts';
import { OUTPUTS } from './outputs.ts';
import { CHECKSUMS_FILE, isSchemaVersion, MANIFEST_FILE, SNAPSHOT_SCHEMA_VERSION } from './schema.ts';

/** What a successful verification checked. */
export interface VerifyReport {
  readonly name: string;
  readonly files: number;
  readonly bytes: number;
  readonly quads: number;
}

/** Every file the manifest lists, and the manifest itself, against SHA256SUMS and the manifest's sizes. */
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

/**
 * Checks a published snapshot folder: the manifest names it, every file matches its size and
 * checksum (manifest and SHA256SUMS), then each output's own checks (outputs.ts): every Parquet
 * file has the documented schema of the folder's schema version (1 or 2: older folders stay valid),
 * that version and the manifest's row count, (schema 2) each graph's quads are the statements of
 * the row that downloaded it, and data.nq.gz parses as N-Quads with one quad per quads row.
 * Throws a `corrupt` error naming the first problem found.
 */
export async function verifySnapshot(folder: string, progress?: Progress): Promise<VerifyReport> {
  const manifest = await readManifest(folder);
  if (manifest.name !== basename(folder)) {
    throw corrupt(folder, `the manifest names snapshot ${manifest.name}, not the folder's name`);
  }
  const version = manifest.schemaVersion;
  if (!isSchemaVersion(version)) {
    throw corrupt(
      folder,
      `schema version ${version} is not one this software reads (1 to ${SNAPSHOT_SCHEMA_VERSION})`,
    );
  }
  const bytes = await checkFiles(folder, manifest);
  const session = await openDuckDb();
  try {
    for (const output of OUTPUTS) {
      await output.check({ folder, manifest, version, connection: session.connection, progress });
    }
  } finally {
    session.close();
  }
  return { name: manifest.name, files: manifest.files.length + 2, bytes, quads: manifest.counts.statements };
}
