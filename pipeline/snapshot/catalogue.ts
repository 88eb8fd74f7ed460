import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotKind } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import { ioError, writeFileAtomic } from './durable-fs.ts';

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

/** The published snapshots of a root, oldest first (by start, then name); none when there is no index.json. */
export async function listSnapshots(root: string): Promise<readonly CatalogueEntry[]> {
  const path = join(root, CATALOGUE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw ioError('read', path, error);
  }
  try {
    const catalogue = JSON.parse(text) as Catalogue;
    if (!Array.isArray(catalogue.snapshots)) throw new Error('no snapshots array');
    return catalogue.snapshots;
  } catch (error) {
    throw new ObservatoryError('corrupt', `${path} is not a snapshot catalogue: ${(error as Error).message}`);
  }
}

function chronological(a: CatalogueEntry, b: CatalogueEntry): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Adds (or replaces, by name) one entry and rewrites index.json atomically. */
export async function addToCatalogue(root: string, entry: CatalogueEntry): Promise<void> {
  const others = (await listSnapshots(root)).filter((e) => e.name !== entry.name);
  const catalogue: Catalogue = {
    catalogueVersion: CATALOGUE_VERSION,
    snapshots: [...others, entry].sort(chronological),
  };
  await writeFileAtomic(join(root, CATALOGUE_FILE), `${JSON.stringify(catalogue, null, 2)}\n`);
}
