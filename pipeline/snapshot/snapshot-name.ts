import type { SnapshotKind } from '../core/index.ts';
import { exactInstant } from '../core/index.ts';

/** The name form of each kind, as snapshotName writes it: its day, then its hour and minute. */
const NAME_FORMS: ReadonlyArray<readonly [SnapshotKind, RegExp]> = [
  ['weekly', /^(\d{4}-\d{2}-\d{2})$/],
  ['interval', /^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z$/],
];

const ANY_TIME = { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY };

/**
 * The folder name of a crawl that started at `startMs` (UTC): `YYYY-MM-DD` for a weekly snapshot,
 * `YYYY-MM-DDTHHMMZ` for an interval crawl (an expansion crawl publishes no snapshot).
 * Names sort chronologically within a kind, and weeklies sort before the interval crawls of their day.
 */
export function snapshotName(kind: SnapshotKind, startMs: number): string {
  const iso = new Date(startMs).toISOString();
  const day = iso.slice(0, 10);
  if (kind === 'weekly') return day;
  return `${day}T${iso.slice(11, 13)}${iso.slice(14, 16)}Z`;
}

/** The kind whose name form `name` has, or null when snapshotName cannot produce it. */
export function snapshotKindOf(name: string): SnapshotKind | null {
  for (const [kind, form] of NAME_FORMS) {
    const m = form.exec(name);
    if (!m) continue;
    // the day and time must exist (no 2026-02-30, no 24:00): snapshotName never writes them
    const instant = m[2] === undefined ? m[1] : `${m[1]}T${m[2]}:${m[3]}Z`;
    return exactInstant(instant, ANY_TIME) === null ? null : kind;
  }
  return null;
}

/** True for a name snapshotName can produce: what publish and verify accept as a folder name. */
export function isSnapshotName(name: string): boolean {
  return snapshotKindOf(name) !== null;
}
