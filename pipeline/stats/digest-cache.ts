import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { makeDirectory } from '../core/index.ts';
import {
  computeDigest,
  DIGEST_VERSION,
  publishedDigest,
  type SnapshotDigest,
  type SnapshotManifest,
} from '../snapshot/index.ts';

/** Where the digest of the snapshot whose manifest has this SHA-256 is cached. */
export function digestCachePath(cacheDir: string, manifestSha256: string): string {
  return join(cacheDir, `digest-v${DIGEST_VERSION}-${manifestSha256}.json`);
}

/** The cached digest of the snapshot whose manifest has this SHA-256, or null. */
export async function cachedDigest(cacheDir: string, manifestSha256: string): Promise<SnapshotDigest | null> {
  try {
    return JSON.parse(await readFile(digestCachePath(cacheDir, manifestSha256), 'utf8')) as SnapshotDigest;
  } catch {
    return null; // not cached yet (or unreadable): to be computed
  }
}

/**
 * The digest of one snapshot: the folder's own digest.json when it publishes one made by the
 * current queries, else queried from its Parquet; either way cached under `cacheDir` by the
 * manifest's SHA-256 (which pins every file, digest.json included), so a rebuild reads only
 * snapshots it has not seen, and never the Parquet of a snapshot that publishes its digest.
 */
export async function snapshotDigest(
  connection: DuckDBConnection,
  folder: string,
  manifest: SnapshotManifest,
  manifestSha256: string,
  cacheDir: string,
): Promise<SnapshotDigest> {
  const cached = await cachedDigest(cacheDir, manifestSha256);
  if (cached) return cached;
  const digest =
    (await publishedDigest(folder, manifest)) ?? (await computeDigest(connection, folder, manifest));
  makeDirectory(cacheDir, 'the portal cache folder');
  await writeFile(digestCachePath(cacheDir, manifestSha256), JSON.stringify(digest));
  return digest;
}
