import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotKind } from '../core/index.ts';
import { ObservatoryError, readRegularFile } from '../core/index.ts';
import { ioError, writeFileAtomic } from './durable-fs.ts';
import { isSnapshotName, SNAPSHOT_KINDS } from './snapshot-name.ts';

export const CATALOGUE_FILE = 'index.json';
export const CATALOGUE_VERSION = 1;

/** One published snapshot as index.json lists it: enough for the portal's overview and links. */
export interface CatalogueEntry {
  readonly name: string;
  readonly kind: SnapshotKind;
  readonly startedAt: string;
  readonly endedAt: string;
  /** When the folder was published (the publisher's clock). */
  readonly publishedAt: string;
  readonly documents: number;
  readonly statements: number;
  /** SHA-256 of the folder's manifest.json, which in turn pins every file. */
  readonly manifestSha256: string;
}

/** index.json: the catalogue of published snapshots, oldest first. */
export interface Catalogue {
  readonly catalogueVersion: number;
  readonly snapshots: readonly CatalogueEntry[];
}

/**
 * What is wrong with one entry of a parsed index.json, or null. A hand-edited or damaged catalogue
 * must be refused here, before any stage joins an entry's name to the root or reads its files.
 */
function entryProblem(entry: CatalogueEntry, seen: ReadonlySet<string>): string | null {
  if (typeof entry?.name !== 'string' || !isSnapshotName(entry.name))
    return `an entry's name ${JSON.stringify(entry?.name)} is not a snapshot folder name`;
  if (seen.has(entry.name)) return `it lists snapshot ${entry.name} twice`;
  if (!SNAPSHOT_KINDS.includes(entry.kind))
    return `snapshot ${entry.name} has kind ${JSON.stringify(entry.kind)}`;
  for (const field of ['startedAt', 'endedAt', 'publishedAt'] as const)
    if (typeof entry[field] !== 'string' || Number.isNaN(Date.parse(entry[field])))
      return `snapshot ${entry.name} has no valid ${field}`;
  if (typeof entry.manifestSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.manifestSha256))
    return `snapshot ${entry.name} has no manifest SHA-256`;
  return null;
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw ioError('inspect', path, error);
  }
}

/**
 * The published snapshots of a root, in the catalogue's order (oldest first); none when there is
 * no index.json. Throws `corrupt` when the catalogue is damaged: not JSON, an entry malformed or
 * listed twice, or an entry whose folder is missing, so that no stage publishes on top of it or
 * reads files that are not there.
 */
export async function listSnapshots(root: string): Promise<readonly CatalogueEntry[]> {
  const path = join(root, CATALOGUE_FILE);
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ioError('read', path, error);
  }
  const snapshots = parseCatalogue(text, path);
  for (const entry of snapshots)
    if (!(await isFolder(join(root, entry.name))))
      throw damagedCatalogue(path, `it lists snapshot ${entry.name}, whose folder is missing`);
  return snapshots;
}

/**
 * The snapshots that observe the kernel over time (weekly and interval), in the catalogue's order:
 * what change detection, conditional re-visits, schedules and trends read. The crawls of a kernel
 * expansion (kind `expand`) are published beside them but are not observations of the kernel.
 */
export function observationSnapshots<T extends { readonly kind: SnapshotKind }>(entries: readonly T[]): T[] {
  return entries.filter((e) => e.kind !== 'expand');
}

function damagedCatalogue(path: string, problem: string): ObservatoryError {
  return new ObservatoryError('corrupt', `${path} is damaged: ${problem}; repair or remove that entry`);
}

/**
 * The entries of an index.json's text (`path` names it in errors), each checked as listSnapshots
 * checks them, but without looking for their folders: for a catalogue fetched from elsewhere.
 */
export function parseCatalogue(text: string, path: string): readonly CatalogueEntry[] {
  let snapshots: readonly CatalogueEntry[];
  try {
    const catalogue = JSON.parse(text) as Catalogue;
    if (!Array.isArray(catalogue?.snapshots)) throw new Error('no snapshots array');
    snapshots = catalogue.snapshots;
  } catch (error) {
    throw new ObservatoryError('corrupt', `${path} is not a snapshot catalogue: ${(error as Error).message}`);
  }
  const seen = new Set<string>();
  for (const entry of snapshots) {
    const problem = entryProblem(entry, seen);
    if (problem) throw damagedCatalogue(path, problem);
    seen.add(entry.name);
  }
  return snapshots;
}

function chronological(a: CatalogueEntry, b: CatalogueEntry): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Adds (or replaces, by name) one entry and rewrites index.json atomically. */
export async function addToCatalogue(root: string, entry: CatalogueEntry): Promise<void> {
  const others = (await listSnapshots(root)).filter((e) => e.name !== entry.name);
  await writeFileAtomic(join(root, CATALOGUE_FILE), formatCatalogue([...others, entry].sort(chronological)));
}

/** index.json's text for these entries: what publish writes, and what the portal republishes beside the downloads. */
export function formatCatalogue(snapshots: readonly CatalogueEntry[]): string {
  const catalogue: Catalogue = { catalogueVersion: CATALOGUE_VERSION, snapshots };
  return `${JSON.stringify(catalogue, null, 2)}\n`;
}
