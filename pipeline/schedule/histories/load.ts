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
 * documents.parquet) is snapshots; *.json or a folder of *.json is MediaWiki; anything else JSON Lines.
 */
export async function detectFormat(path: string): Promise<HistoryFormat> {
  if (/\.parquet$/i.test(path)) return 'snapshots';
  if ((await kind(path)) === 'file') return /\.json$/i.test(path) ? 'mediawiki' : 'jsonl';
  const names = await readdir(path, { withFileTypes: true });
  if (names.some((e) => e.name === 'documents.parquet')) return 'snapshots';
  if (names.some((e) => e.isFile() && /\.json$/i.test(e.name))) return 'mediawiki';
  return 'snapshots';
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
  const files =
    (await kind(path)) === 'dir'
      ? (await readdir(path))
          .filter((f) => /\.json$/i.test(f))
          .sort()
          .map((f) => join(path, f))
      : [path];
  if (files.length === 0)
    throw new ObservatoryError('invalid_input', `--histories: no *.json file in ${path}`);
  const pages = new Map<string, PageRevisions>();
  for (const file of files)
    addMediaWikiResponse(await readFile(file, 'utf8'), file, pages, options.keepMinor);
  return mediaWikiHistories(pages);
}
