import { join } from 'node:path';
import { parquetFileName, TABLE_NAMES, type TableName, tableViewPath } from '../snapshot/index.ts';
import { DOWNLOADS_DIR, type DownloadableSnapshot, type DownloadFile } from '../stats/index.ts';
import type { SiteFile } from './site-sync.ts';

/** One snapshot's table at its place in the tables/ view (hive partitions by kind and date). */
export interface TableViewFile {
  readonly table: TableName;
  /** Relative to the snapshots folder: `tables/<table>/kind=<kind>/date=<day>/<name>.parquet`. */
  readonly path: string;
  readonly snapshot: DownloadableSnapshot;
  readonly file: DownloadFile;
}

/** Every Parquet table of every snapshot in the tables/ view, by table, then in the catalogue's order. */
export function tableViewFiles(snapshots: readonly DownloadableSnapshot[]): TableViewFile[] {
  return TABLE_NAMES.flatMap((table) =>
    snapshots.flatMap((snapshot) => {
      const file = snapshot.files.find((f) => f.name === parquetFileName(table));
      return file
        ? [{ table, path: tableViewPath(table, snapshot.kind, snapshot.name), snapshot, file }]
        : [];
    }),
  );
}

/**
 * Every published file as a file of the site at `snapshots/<name>/<file>`, and each Parquet table
 * also at its place in the tables/ view, hard links (copies across file systems) of the snapshot's
 * own, so the built site serves its own downloads at the durable URLs it states, beside each
 * snapshot's page, without doubling the disk used.
 */
export function downloadSiteFiles(
  root: string,
  snapshots: readonly DownloadableSnapshot[],
): Map<string, SiteFile> {
  const own = (s: DownloadableSnapshot, f: DownloadFile): SiteFile => ({
    from: join(root, s.name, f.name),
    identity: `sha256:${f.sha256}`,
  });
  return new Map([
    ...snapshots.flatMap((s) =>
      s.files.map((f): [string, SiteFile] => [join(DOWNLOADS_DIR, s.name, f.name), own(s, f)]),
    ),
    ...tableViewFiles(snapshots).map((v): [string, SiteFile] => [
      join(DOWNLOADS_DIR, v.path),
      own(v.snapshot, v.file),
    ]),
  ]);
}
