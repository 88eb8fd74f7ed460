import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inParallel, makeDirectory, ObservatoryError, replaceFile } from '../core/index.ts';
import {
  CATALOGUE_FILE,
  type CatalogueEntry,
  CHECKSUMS_FILE,
  DIGEST_FILE,
  hashFile,
  MANIFEST_FILE,
  observationSnapshots,
  parquetFileName,
  parseCatalogue,
  parseChecksums,
  publishedDigest,
  readManifest,
  type SnapshotManifest,
  type TableName,
  writeFileAtomic,
} from '../snapshot/index.ts';
import {
  cachedDigest,
  HISTORY_DIR,
  HISTORY_KEY_FILE,
  historyFilesOf,
  historyReads,
  latestWeekly,
  roundCrawls,
} from '../stats/index.ts';

/** What a fetch of the portal's inputs brought over the network. */
export interface FetchedInputs {
  /** Files downloaded (files already present with the right checksum are not). */
  readonly files: number;
  readonly bytes: number;
}

/** Downloads at once: a few connections to one host, as a mirroring tool would use. */
const PARALLEL_DOWNLOADS = 4;
/** The tables a digest is queried from; a folder of an older schema lists no delta.parquet, and none is fetched. */
const DIGEST_TABLES: readonly TableName[] = [
  'documents',
  'changes',
  'redirects',
  'schedule',
  'quads',
  'delta',
];
const HISTORY_TABLES: readonly TableName[] = ['documents', 'changes'];

function unavailable(url: string, problem: string): ObservatoryError {
  return new ObservatoryError('unavailable', `${url}: ${problem}`);
}

async function get(url: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw unavailable(
      url,
      cause === undefined ? (error as Error).message : `${(error as Error).message} (${cause})`,
    );
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw unavailable(url, `answered ${response.status}`);
  }
  return response;
}

/**
 * Downloads `url` to `path` unless the file there already has `sha256`; the body is hashed as it
 * arrives, written beside and renamed into place only when it has that checksum (when one is
 * given), so a damaged or substituted file never reaches the build. Returns the bytes downloaded.
 */
async function download(url: string, path: string, sha256: string | null): Promise<number> {
  if (sha256 && (await hashFile(path).catch(() => null))?.sha256 === sha256) return 0;
  const response = await get(url);
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await replaceFile(path, async (temporary) => {
    try {
      await pipeline(Readable.fromWeb(response.body as never), tap, createWriteStream(temporary));
    } catch (error) {
      throw unavailable(url, (error as Error).message);
    }
    const got = hash.digest('hex');
    if (sha256 && got !== sha256)
      throw new ObservatoryError('corrupt', `${url}: its SHA-256 is ${got}, the manifest says ${sha256}`);
  });
  return bytes;
}

/** The folder of the site where a build publishes its state for the next build without a cache. */
export const PORTAL_STATE_DIR = 'portal-state';

/**
 * The history totals the portal at `url` published (its state.json and the files it names) into
 * `dir`, when the build has none of its own: a build without its cache (a CI run whose cache was
 * evicted) then reads only the snapshots published since, not every snapshot's tables. Nothing
 * fetched when the site has none (a first build) or answers otherwise; the totals are checked
 * against the catalogue before use (loadHistoryState), like cached ones.
 */
async function fetchHistoryState(url: string, dir: string): Promise<FetchedInputs> {
  let key: string;
  try {
    const response = await fetch(`${url}${HISTORY_KEY_FILE}`);
    if (!response.ok) {
      await response.body?.cancel();
      return { files: 0, bytes: 0 };
    }
    key = await response.text();
  } catch {
    return { files: 0, bytes: 0 }; // no published portal to take them from
  }
  const names = historyFilesOf(key);
  if (!names) return { files: 0, bytes: 0 };
  // what the folder held could not be used (else nothing is fetched): it goes, not to linger in the cache
  await rm(dir, { recursive: true, force: true });
  makeDirectory(dir, 'the portal cache folder');
  let bytes = Buffer.byteLength(key);
  try {
    // the tables first, the key last: a key names only files that are there
    for (const name of names.slice(1)) bytes += await download(`${url}${name}`, join(dir, name), null);
  } catch {
    return { files: 0, bytes }; // a half-published state: built from the tables instead
  }
  await writeFileAtomic(join(dir, names[0]), key);
  return { files: names.length, bytes };
}

/** The SHA-256 a SHA256SUMS file gives manifest.json; null when there is no such file or line. */
async function checksumOfManifest(path: string): Promise<string | null> {
  try {
    return parseChecksums(await readFile(path, 'utf8'), path).get(MANIFEST_FILE) ?? null;
  } catch {
    return null; // absent or malformed: fetched (again)
  }
}

/** The name of one of the manifest's files, checked to be listed (so no name from the network is joined to a path). */
function listedFile(manifest: SnapshotManifest, name: string) {
  return manifest.files.find((f) => f.name === name) ?? null;
}

/**
 * Fetches from `snapshotsUrl` (a published snapshots folder: index.json and its folders) into
 * `root` exactly what the next portal build over it reads, given the build's cache in `cacheDir`:
 * every listed snapshot's manifest.json (checked against index.json) and SHA256SUMS; digest.json
 * of the snapshots whose digest is not cached (their tables only when they publish no usable
 * digest); the documents and changes tables of the snapshots the cached history totals do not
 * cover; the newest weekly snapshot's documents table (the PLD pages, the Reproductions page); the
 * documents tables of the expansion crawls (or newest weekly) that the Reproductions page's
 * per-round figures show. Each data file is checked against its manifest's SHA-256. index.json is written last, once every folder it lists exists.
 */
export async function fetchPortalInputs(o: {
  readonly snapshotsUrl: string;
  readonly root: string;
  readonly cacheDir: string;
  /** Where the portal publishes its own state (`<base-url>portal-state/`). */
  readonly stateUrl: string;
}): Promise<FetchedInputs> {
  const indexUrl = `${o.snapshotsUrl}${CATALOGUE_FILE}`;
  const indexText = await (await get(indexUrl)).text();
  const catalogue = parseCatalogue(indexText, indexUrl);
  makeDirectory(o.root, 'the snapshots folder');
  let files = 1;
  let bytes = Buffer.byteLength(indexText);
  const fetchFile = async (entry: CatalogueEntry, name: string, sha256: string | null) => {
    const got = await download(
      `${o.snapshotsUrl}${entry.name}/${name}`,
      join(o.root, entry.name, name),
      sha256,
    );
    if (got > 0) files++;
    bytes += got;
  };
  const manifests = await inParallel(catalogue, PARALLEL_DOWNLOADS, async (entry) => {
    const folder = join(o.root, entry.name);
    makeDirectory(folder, 'the snapshot folder');
    await fetchFile(entry, MANIFEST_FILE, entry.manifestSha256);
    // SHA256SUMS is pinned through the manifest's line in it: one that names this manifest is current
    const sums = join(folder, CHECKSUMS_FILE);
    if ((await checksumOfManifest(sums)) !== entry.manifestSha256) {
      await fetchFile(entry, CHECKSUMS_FILE, null);
      if ((await checksumOfManifest(sums)) !== entry.manifestSha256)
        throw new ObservatoryError(
          'corrupt',
          `${o.snapshotsUrl}${entry.name}/${CHECKSUMS_FILE} does not list the manifest index.json pins`,
        );
    }
    return readManifest(folder);
  });
  const wanted = new Map<CatalogueEntry, Set<TableName>>(catalogue.map((e) => [e, new Set()]));
  // the build reads the kernel's observations only: of an expansion crawl, the manifest is enough
  const observed = observationSnapshots(catalogue);
  await inParallel(catalogue, PARALLEL_DOWNLOADS, async (entry, i) => {
    if (!observed.includes(entry) || (await cachedDigest(o.cacheDir, entry.manifestSha256))) return;
    const digest = listedFile(manifests[i], DIGEST_FILE);
    if (digest) await fetchFile(entry, digest.name, digest.sha256);
    if (!digest || !(await publishedDigest(join(o.root, entry.name), manifests[i])))
      for (const table of DIGEST_TABLES) wanted.get(entry)?.add(table);
  });
  let reads = await historyReads(observed, o.cacheDir);
  if (reads.length === observed.length && observed.length > 0) {
    const state = await fetchHistoryState(`${o.stateUrl}${HISTORY_DIR}/`, join(o.cacheDir, HISTORY_DIR));
    files += state.files;
    bytes += state.bytes;
    reads = await historyReads(observed, o.cacheDir);
  }
  const folded = new Set(reads);
  for (const entry of catalogue)
    if (folded.has(entry.name)) for (const table of HISTORY_TABLES) wanted.get(entry)?.add(table);
  if (observed.length > 0) wanted.get(latestWeekly(observed))?.add('documents');
  // the crawls of the Reproductions page's per-round figures (already here: not downloaded again)
  const manifestOf = (entry: CatalogueEntry) => manifests[catalogue.indexOf(entry)];
  for (const entry of roundCrawls(catalogue, manifestOf).crawls) wanted.get(entry)?.add('documents');
  const jobs = catalogue.flatMap((entry, i) =>
    [...(wanted.get(entry) ?? [])].flatMap((table) => {
      const file = listedFile(manifests[i], parquetFileName(table));
      return file ? [{ entry, file }] : [];
    }),
  );
  await inParallel(jobs, PARALLEL_DOWNLOADS, ({ entry, file }) => fetchFile(entry, file.name, file.sha256));
  await writeFileAtomic(join(o.root, CATALOGUE_FILE), indexText);
  return { files, bytes };
}
