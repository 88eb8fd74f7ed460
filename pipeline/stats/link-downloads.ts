import { join } from 'node:path';
import type { SnapshotView } from './portal-data.ts';
import type { SiteFile } from './site-sync.ts';

/** The folder of the built site that mirrors the snapshots folder when downloads are served with the site. */
export const DOWNLOADS_DIR = 'snapshots';

/**
 * Every published file as a file of the site at `snapshots/<name>/<file>`, a hard link (a copy
 * across file systems) of the snapshot's own, so the built site serves its own downloads at the
 * durable URLs it states, beside each snapshot's page, without doubling the disk used.
 */
export function downloadSiteFiles(root: string, snapshots: readonly SnapshotView[]): Map<string, SiteFile> {
  return new Map(
    snapshots.flatMap((s) =>
      s.files.map((f): [string, SiteFile] => [
        join(DOWNLOADS_DIR, s.name, f.name),
        { from: join(root, s.name, f.name), identity: `sha256:${f.sha256}` },
      ]),
    ),
  );
}
