import { snapshotIri } from './dataset-description.ts';
import type { LatestAlias, SnapshotView } from './portal-data.ts';

/** `<base-url>snapshots/latest.json`: the newest weekly snapshot, for scripts that want "this week's data". */
export const LATEST_FILE = 'latest.json';
/**
 * The `latest` entry among the per-snapshot file lists (`<base-url>snapshots/latest/urls.txt`). Snapshot
 * names are dates, so it cannot collide with one.
 */
export const LATEST_NAME = 'latest';

/**
 * The snapshots trends are drawn over: the weekly ones (every snapshot when there is none), since an
 * interval snapshot holds only the documents due in its slot.
 */
export function weeklyTrend<T extends { readonly kind: string }>(snapshots: readonly T[]): readonly T[] {
  const weekly = snapshots.filter((s) => s.kind === 'weekly');
  return weekly.length > 0 ? weekly : snapshots;
}

/** The newest snapshot of `weeklyTrend`: what "the latest data" means on the portal and in the alias. */
export function latestWeekly<T extends { readonly kind: string }>(snapshots: readonly T[]): T {
  const trend = weeklyTrend(snapshots);
  return trend[trend.length - 1];
}

/**
 * The `latest` alias as static files rather than a redirect, because the portal must work on GitHub
 * Pages, which serves files and no redirects: a JSON document naming the newest weekly snapshot with
 * its page and file URLs.
 */
export function latestAlias(baseUrl: string, snapshots: readonly SnapshotView[]): LatestAlias {
  const s = latestWeekly(snapshots);
  return {
    name: s.name,
    kind: s.kind,
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    publishedAt: s.publishedAt,
    manifestSha256: s.manifestSha256,
    page: snapshotIri(baseUrl, s.name),
    files: s.files,
  };
}
