import { basename, join } from 'node:path';
import { type ObservatoryError, type Progress, readRegularFile } from '../core/index.ts';
import { openDuckDb } from './duckdb-session.ts';
import { hashFile, ioError } from './durable-fs.ts';
import { corrupt } from './folder-error.ts';
import { parseChecksums, readManifest, type SnapshotManifest } from './manifest.ts';
import { readingConfig } from './manifest-config.ts';
import { OUTPUTS } from './outputs.ts';
import {
  CHECKSUMS_FILE,
  isSchemaVersion,
  MANIFEST_FILE,
  type SchemaVersion,
  SNAPSHOT_SCHEMA_VERSION,
} from './schema.ts';

/** What a successful verification checked. */
export interface VerifyReport {
  readonly name: string;
  readonly files: number;
  readonly bytes: number;
  readonly quads: number;
}

/**
 * Every file the manifest lists (or those of them named in `read`), and the manifest itself, against
 * SHA256SUMS and the manifest's sizes; SHA256SUMS must list exactly the manifest's files.
 */
async function checkFiles(
  folder: string,
  manifest: SnapshotManifest,
  read?: readonly string[],
): Promise<number> {
  const sumsPath = join(folder, CHECKSUMS_FILE);
  const sums = parseChecksums(
    await readRegularFile(sumsPath).catch((e) => {
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
  const checked = read === undefined ? manifest.files : manifest.files.filter((f) => read.includes(f.name));
  for (const file of [...checked, { name: MANIFEST_FILE, bytes: -1, sha256: sums.get(MANIFEST_FILE)! }]) {
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

/** What `verify` does besides the checks every folder gets. */
export interface VerifyOptions {
  /**
   * Also read every byte of the archive: each WARC record against its own WARC-Block-Digest and
   * WARC-Payload-Digest, each body the crawl read against documents.content_sha256 (`verify --deep`).
   */
  readonly deep?: boolean;
  /** A progress for each long check, named by what it counts (`data.nq.gz bytes`, `WARC bytes`). */
  readonly progress?: (counting: string) => Progress;
}

/** A folder whose files are what its manifest and SHA256SUMS say (verifyFiles). */
export interface VerifiedFiles {
  readonly manifest: SnapshotManifest;
  readonly version: SchemaVersion;
  /** The bytes of the files checked, manifest.json included. */
  readonly bytes: number;
}

/**
 * What a reader checks of a published folder before it opens any of its files: the manifest names
 * the folder, its schema version is one this software reads, and every file it lists (and the
 * manifest itself) is a regular file of the size and SHA-256 checksum the manifest and SHA256SUMS
 * give (only those named in `read`, for a reader that reads no others, and the manifest). Throws a
 * `corrupt` error naming the first problem found. The first half of verifySnapshot; reparse checks
 * the snapshot it carries 304 statements from with it.
 */
export async function verifyFiles(
  folder: string,
  options: { readonly read?: readonly string[] } = {},
): Promise<VerifiedFiles> {
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
  return { manifest, version, bytes: await checkFiles(folder, manifest, options.read) };
}

/**
 * Checks a published snapshot folder: its files (verifyFiles), the config its manifest records as
 * far as readers rely on it (readingConfig), then each output's own checks (outputs.ts): every
 * Parquet file has the documented schema of the folder's schema version (older folders stay valid),
 * that version and the manifest's row count, (schema 2) each graph's quads are the statements of
 * the row that downloaded it, data.nq.gz parses as N-Quads with one quad per quads row, and (schema
 * 3) every WARC pointer opens a response record of its row's final URL; with `deep`, every WARC
 * record and body as well (warc-output.ts). Throws a `corrupt` error naming the first problem found.
 */
export async function verifySnapshot(folder: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const { manifest, version, bytes } = await verifyFiles(folder);
  const config = readingConfig(folder, manifest);
  const session = await openDuckDb();
  try {
    for (const output of OUTPUTS) {
      await output.check({
        folder,
        manifest,
        version,
        config,
        deep: options.deep === true,
        connection: session.connection,
        progress: options.progress,
      });
    }
  } finally {
    session.close();
  }
  return { name: manifest.name, files: manifest.files.length + 2, bytes, quads: manifest.counts.statements };
}
