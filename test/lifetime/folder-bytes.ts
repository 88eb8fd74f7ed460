import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The kinds of file a snapshots root holds, in the order the report lists them. */
export const FILE_KINDS = ['dump', 'quads', 'tables', 'archive', 'metadata', 'incomplete', 'other'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** What each kind stands for, for the report's legend. */
export const FILE_KIND_LEGEND: Readonly<Record<FileKind, string>> = {
  dump: 'data.nq.gz',
  quads: 'quads.parquet',
  tables: 'the other Parquet tables (documents, redirects, changes, schedule, delta)',
  archive: 'WARC files and their index (index.cdx.gz and index.idx; index.cdxj before schema 6)',
  metadata:
    "manifest.json, digest.json, SHA256SUMS, index.json, .observations/ (each URL's last observation)",
  incomplete: 'everything under .incomplete/ (crawls in progress, damaged runs moved aside)',
  other: 'anything else',
};

/** The root's folders whose files are of one kind whatever their names. */
const FOLDER_KINDS: Readonly<Record<string, FileKind>> = {
  '.incomplete': 'incomplete',
  '.observations': 'metadata',
};

function kindOf(name: string, folderKind: FileKind | undefined): FileKind {
  if (folderKind !== undefined) return folderKind;
  if (name === 'data.nq.gz') return 'dump';
  if (name.endsWith('quads.parquet')) return 'quads';
  if (name.endsWith('.parquet')) return 'tables';
  if (name.endsWith('.warc.gz') || name.endsWith('.warc')) return 'archive';
  if (name === 'index.cdx.gz' || name === 'index.idx' || name === 'index.cdxj') return 'archive';
  if (/^(manifest|digest|index)\.json$/.test(name) || name === 'SHA256SUMS') return 'metadata';
  return 'other';
}

/**
 * Bytes under `root` per kind of file, each file counted once however many hard links it has (the
 * tables/ view links every table of every snapshot), so the sums are what the disk holds.
 */
export function bytesByKind(root: string): Record<FileKind, number> {
  const totals = Object.fromEntries(FILE_KINDS.map((k) => [k, 0])) as Record<FileKind, number>;
  const inodes = new Set<number>();
  const walk = (dir: string, folderKind: FileKind | undefined) => {
    let names: string[];
    try {
      // the tables/ view last: its links are named by snapshot, its files counted by their own names
      names = readdirSync(dir).sort((a, b) => Number(a === 'tables') - Number(b === 'tables'));
    } catch {
      return; // removed meanwhile
    }
    for (const name of names) {
      const path = join(dir, name);
      let s: ReturnType<typeof lstatSync>;
      try {
        s = lstatSync(path);
      } catch {
        continue;
      }
      if (s.isDirectory()) walk(path, folderKind ?? FOLDER_KINDS[name]);
      else if (s.isFile() && !inodes.has(s.ino)) {
        inodes.add(s.ino);
        totals[kindOf(name, folderKind)] += s.size;
      }
    }
  };
  walk(root, undefined);
  return totals;
}
