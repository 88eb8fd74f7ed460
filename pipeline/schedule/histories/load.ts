import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ObservatoryError } from '../../core/index.ts';
import { parseHistoriesJsonl } from './jsonl.ts';
import { addMediaWikiResponse, mediaWikiHistories, type PageRevisions } from './mediawiki.ts';
import { snapshotHistories } from './snapshots.ts';
import type { ChangeHistory } from './types.ts';

export type HistoryFormat = 'jsonl' | 'mediawiki' | 'snapshots';
export const HISTORY_FORMATS: readonly HistoryFormat[] = Object.freeze(['jsonl', 'mediawiki', 'snapshots']);

export interface LoadOptions {
  /** Detected from the path when absent: see detectFormat. */
  readonly format?: HistoryFormat;
  /** Keep MediaWiki minor revisions as changes (dropped by default). */
  readonly keepMinor?: boolean;
}

async function kind(path: string): Promise<'file' | 'dir'> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch (error) {
    throw new ObservatoryError(
      'invalid_input',
      `--histories: cannot read ${path}: ${(error as Error).message}`,
    );
  }
}

/**
 * The format of a history source: *.parquet or a folder of snapshot folders (or holding
 * documents.parquet) is snapshots; *.json, or a folder tree holding *.json files and no
 * documents.parquet (MediaWiki responses, flat or in one subfolder per category), is MediaWiki;
 * any other file JSON Lines.
 */
export async function detectFormat(path: string): Promise<HistoryFormat> {
  if (/\.parquet$/i.test(path)) return 'snapshots';
  if ((await kind(path)) === 'file') return /\.json$/i.test(path) ? 'mediawiki' : 'jsonl';
  const names = await readdir(path, { withFileTypes: true });
  if (names.some((e) => e.name === 'documents.parquet')) return 'snapshots';
  if (names.some((e) => e.isFile() && /\.json$/i.test(e.name))) return 'mediawiki';
  // one subfolder per category; a snapshot folder holds manifest.json too, so documents.parquet decides
  const inside = await Promise.all(
    names.filter((e) => e.isDirectory()).map((e) => readdir(join(path, e.name))),
  );
  if (inside.some((files) => files.includes('documents.parquet'))) return 'snapshots';
  return inside.some((files) => files.some((f) => /\.json$/i.test(f))) ? 'mediawiki' : 'snapshots';
}

/** Every *.json file in a folder and its subfolders, in a stable order. */
async function jsonFilesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.json$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The Parquet glob for a snapshot source: a file as is, a snapshot folder, or the snapshots/ root. */
async function parquetGlob(path: string): Promise<string> {
  if (/\.parquet$/i.test(path) || (await kind(path)) === 'file') return path;
  const names = await readdir(path);
  return names.includes('documents.parquet')
    ? join(path, 'documents.parquet')
    : join(path, '*', 'documents.parquet');
}

/** Reads change histories from a file or folder in any supported format. */
export async function loadHistories(path: string, options: LoadOptions = {}): Promise<ChangeHistory[]> {
  const format = options.format ?? (await detectFormat(path));
  if (format === 'snapshots') return snapshotHistories(await parquetGlob(path));
  if (format === 'jsonl') {
    if ((await kind(path)) === 'dir')
      throw new ObservatoryError(
        'invalid_input',
        `--histories: ${path} is a folder, expected a JSON Lines file`,
      );
    return parseHistoriesJsonl(await readFile(path, 'utf8'), path);
  }
  const files = (await kind(path)) === 'dir' ? await jsonFilesUnder(path) : [path];
  if (files.length === 0)
    throw new ObservatoryError('invalid_input', `--histories: no *.json file in ${path}`);
  const pages = new Map<string, PageRevisions>();
  for (const file of files)
    addMediaWikiResponse(await readFile(file, 'utf8'), file, pages, options.keepMinor);
  return mediaWikiHistories(pages);
}
