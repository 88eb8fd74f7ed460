import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDirectory, replaceFile, type SnapshotKind } from '../core/index.ts';
import { ioError, linkOrCopy } from './durable-fs.ts';
import { parquetFileName, TABLE_NAMES } from './schema.ts';

/**
 * The folder, under a snapshot root, of the hive-partitioned view of every table
 * (docs/data-dictionary.md, One glob over all snapshots).
 */
export const TABLES_DIR = 'tables';

/** What linkSnapshotTables did to a snapshot's entries under tables/. */
export interface TableLinks {
  /** Links made where none was. */
  readonly created: number;
  /** Files that were not the snapshot's own (a copy made by `cp -r`, say), replaced by links. */
  readonly replaced: number;
  readonly present: number;
}

/**
 * Where a snapshot's table sits in the view, relative to the root (a URL path under a published
 * root alike): `tables/<table>/kind=<kind>/date=<day>/<name>.parquet`.
 * `kind` is also a column of every file and holds the same value (a name has its kind's form), so
 * DuckDB's partition value, which it puts in place of the column, changes nothing but lets
 * `WHERE kind = ...` skip files; `date` is the start day (UTC) of the name, which DuckDB reads as a DATE.
 */
export function tableViewPath(table: string, kind: SnapshotKind, name: string): string {
  return join(TABLES_DIR, table, `kind=${kind}`, `date=${name.slice(0, 10)}`, `${name}.parquet`);
}

async function statOrNull(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError('inspect', path, error);
  }
}

/**
 * Makes the published snapshot `<root>/<name>` appear in the tables/ view: each of its Parquet tables
 * hard-linked (copied across file systems) at viewPath, so the view costs no disk. Idempotent and
 * touches only this snapshot's entries: publish calls it for the snapshot it lists, `migrate` for
 * every listed snapshot. A link is made aside and renamed into place, so a reader never sees half
 * a file. Tables a snapshot of an older schema lacks are left out.
 */
export async function linkSnapshotTables(
  root: string,
  name: string,
  kind: SnapshotKind,
): Promise<TableLinks> {
  let created = 0;
  let replaced = 0;
  let present = 0;
  for (const table of TABLE_NAMES) {
    const source = join(root, name, parquetFileName(table));
    const own = await statOrNull(source);
    if (!own) continue;
    const target = join(root, tableViewPath(table, kind, name));
    const seen = await statOrNull(target);
    // a copy on another file system cannot share the inode: its size is what tells it apart
    const same =
      seen !== null &&
      (seen.dev === own.dev ? seen.ino === own.ino : seen.isFile() && seen.size === own.size);
    if (same) {
      present++;
      continue;
    }
    makeDirectory(dirname(target), 'the tables/ folder');
    await replaceFile(target, (temporary) => linkOrCopy(source, temporary));
    if (seen) replaced++;
    else created++;
  }
  return { created, replaced, present };
}
