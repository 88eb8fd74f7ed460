import type { SnapshotKind } from '../core/index.ts';

const NAME_PATTERN = /^(?:\d{4}-\d{2}-\d{2}|\d{4}-\d{2}-\d{2}T\d{4}Z|expand-\d{4}-\d{2}-\d{2}T\d{4}Z)$/;

/**
 * The folder name of a crawl that started at `startMs` (UTC): `YYYY-MM-DD` for a weekly snapshot,
 * `YYYY-MM-DDTHHMMZ` for an interval crawl, `expand-YYYY-MM-DDTHHMMZ` for an expansion crawl.
 * Names sort chronologically within a kind, and weeklies sort before the interval crawls of their day.
 */
export function snapshotName(kind: SnapshotKind, startMs: number): string {
  const iso = new Date(startMs).toISOString();
  const day = iso.slice(0, 10);
  if (kind === 'weekly') return day;
  const minute = `${day}T${iso.slice(11, 13)}${iso.slice(14, 16)}Z`;
  return kind === 'interval' ? minute : `expand-${minute}`;
}

/** True for a name snapshotName can produce: what publish and verify accept as a folder name. */
export function isSnapshotName(name: string): boolean {
  return NAME_PATTERN.test(name);
}
