import { createHash } from 'node:crypto';
import type { DomainView, PldFigures, SnapshotView } from './portal-data.ts';

/**
 * A safe path segment for a PLD's page: PLDs come from crawled host names, so anything beyond
 * lower-case letters, digits, dots and hyphens is replaced and a short hash keeps slugs distinct.
 */
export function domainSlug(pld: string): string {
  if (/^[a-z0-9][a-z0-9.-]{0,100}$/.test(pld)) return pld;
  const safe = pld
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .slice(0, 60);
  return `${safe}-${createHash('sha256').update(pld).digest('hex').slice(0, 8)}`;
}

/** Every PLD of the weekly snapshots with its figures per weekly snapshot (interval crawls add changes only). */
export function domainViews(snapshots: readonly SnapshotView[]): DomainView[] {
  const weekly = snapshots.filter((s) => s.kind === 'weekly');
  const series = new Map<string, Array<PldFigures & { snapshot: string }>>();
  const dynamics = new Map<string, { comparisons: number; changed: number }>();
  for (const s of weekly.length > 0 ? weekly : snapshots)
    for (const p of s.digest.plds) {
      const list = series.get(p.pld) ?? [];
      list.push({ ...p, snapshot: s.name });
      series.set(p.pld, list);
    }
  for (const s of snapshots)
    for (const p of s.digest.plds) {
      const d = dynamics.get(p.pld) ?? { comparisons: 0, changed: 0 };
      dynamics.set(p.pld, { comparisons: d.comparisons + p.comparisons, changed: d.changed + p.changed });
    }
  return [...series]
    .map(([pld, list]) => ({
      pld,
      slug: domainSlug(pld),
      series: list,
      comparisons: dynamics.get(pld)?.comparisons ?? 0,
      changed: dynamics.get(pld)?.changed ?? 0,
    }))
    .sort((a, b) => (a.pld < b.pld ? -1 : a.pld > b.pld ? 1 : 0));
}
