import { join } from 'node:path';
import type { SnapshotKind } from '../core/index.ts';
import { ObservatoryError, quoteInput, readRegularFile } from '../core/index.ts';
import { ioError } from './durable-fs.ts';
import { CHECKSUMS_FILE, MANIFEST_FILE, type SchemaVersion } from './schema.ts';
import type { SnapshotStats } from './snapshot-stats.ts';

/** One published file, as listed in manifest.json. */
export interface ManifestFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Rows of a Parquet file (quads: also the lines of data.nq.gz); absent for other files. */
  readonly rows?: number;
}

/** Where a snapshot rebuilt from another's WARC files (`observatory reparse`) came from. */
export interface ReparsedFrom {
  /** The source snapshot's folder name (the same as this one's). */
  readonly snapshot: string;
  /** SHA-256 of the source's manifest.json: which publication of that name was read. */
  readonly manifestSha256: string;
  /** The software version that crawled the source (its manifest's softwareVersion). */
  readonly crawledWith: string;
}

/** Which crawl of a kernel expansion an `expand` snapshot holds (`observatory expand`). */
export interface ExpansionOfSnapshot {
  /**
   * The expansion run (one `observatory expand` and its reruns) this crawl belongs to: the start
   * minute of its crawl 1, `YYYY-MM-DDTHHMMZ` (`expansionRunName`), the same in all its crawls.
   * Absent in manifests published before it was recorded; readers then group by crawl number
   * (pipeline/stats/expansion-runs.ts).
   */
  readonly run?: string;
  /** The crawl's number, 1 to `of`. */
  readonly crawl: number;
  /** Crawls of the expansion (`--repeat`). */
  readonly of: number;
  /** Hops from the seeds (`--hops`). */
  readonly hops: number;
  /** How many core seeds the crawl started from (its round 0): the seed list's distinct URIs. */
  readonly seeds: number;
}

/** manifest.json: everything needed to cite, check and summarise one snapshot folder. */
export interface SnapshotManifest {
  /** Schema version of the folder's files: the one it was published in (schema.ts, the data dictionary). */
  readonly schemaVersion: SchemaVersion;
  readonly name: string;
  readonly kind: SnapshotKind;
  /** Start and end of the crawl, ISO 8601 UTC. */
  readonly startedAt: string;
  readonly endedAt: string;
  readonly softwareVersion: string;
  /** The crawl configuration as the crawler recorded it. */
  readonly config: unknown;
  /** Order-independent SHA-256 of the publish input: a rerun with the same input is recognised. */
  readonly inputFingerprint: string;
  /**
   * The snapshots whose WARC records this one's revisit records refer to (docs/archive.md,
   * "Revisits"): its archive is whole only beside them. Absent when there are none.
   */
  readonly dependsOn?: readonly string[];
  /** Earlier snapshots read for change detection (newest first). */
  readonly previousSnapshots: readonly string[];
  readonly counts: {
    readonly documents: number;
    readonly statements: number;
    readonly redirects: number;
    readonly changes: number;
    readonly schedule: number;
  };
  readonly stats: SnapshotStats;
  /** Every file of the folder except manifest.json itself and SHA256SUMS. */
  readonly files: readonly ManifestFile[];
  /** Present when the statements were rebuilt from another snapshot's WARC files (docs/archive.md). */
  readonly reparsedFrom?: ReparsedFrom;
  /** Present in an `expand` snapshot (and only there): which crawl of which expansion it is. */
  readonly expansion?: ExpansionOfSnapshot;
}

/** A file name that stays in its folder when joined to it: no separator, not `.` or `..`, no NUL. */
function isPlainName(name: unknown): boolean {
  return typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

/** Reads (a regular file only: readRegularFile) and minimally checks the manifest.json of a snapshot folder. */
export async function readManifest(folder: string): Promise<SnapshotManifest> {
  const path = join(folder, MANIFEST_FILE);
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? new ObservatoryError('corrupt', `${path} is missing`)
      : ioError('read', path, error);
  }
  let manifest: SnapshotManifest;
  try {
    manifest = JSON.parse(text) as SnapshotManifest;
  } catch (error) {
    throw new ObservatoryError('corrupt', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof manifest?.name !== 'string' || !Array.isArray(manifest.files) || !manifest.counts) {
    throw new ObservatoryError('corrupt', `${path} lacks name, counts or files`);
  }
  // every name is joined to a folder by its readers: one that is not a plain file name would lead out of it
  for (const name of [manifest.name, ...manifest.files.map((f) => f?.name)]) {
    if (!isPlainName(name))
      throw new ObservatoryError(
        'corrupt',
        `${path} names ${quoteInput(String(name))}: not a plain file name`,
      );
  }
  return manifest;
}

/** SHA256SUMS in the format `sha256sum -c` reads: one `<hex>  <name>` line per file. */
export function formatChecksums(files: ReadonlyArray<{ name: string; sha256: string }>): string {
  return files.map((f) => `${f.sha256}  ${f.name}\n`).join('');
}

/** Parses SHA256SUMS into name -> hex; throws `corrupt` on a malformed line. */
export function parseChecksums(text: string, path: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m) throw new ObservatoryError('corrupt', `${path}: malformed line ${quoteInput(line)}`);
    sums.set(m[2], m[1]);
  }
  return sums;
}

export { CHECKSUMS_FILE, MANIFEST_FILE };
