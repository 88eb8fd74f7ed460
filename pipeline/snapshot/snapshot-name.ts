import type { SnapshotKind } from '../core/index.ts';
import { exactInstant } from '../core/index.ts';

/** Every kind a snapshot folder can have. */
export const SNAPSHOT_KINDS: readonly SnapshotKind[] = ['weekly', 'interval', 'expand'];

/** The name form of each kind, as snapshotName writes it: its day, then its hour and minute. */
const NAME_FORMS: ReadonlyArray<readonly [SnapshotKind, RegExp]> = [
  ['weekly', /^(\d{4}-\d{2}-\d{2})$/],
  ['interval', /^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z$/],
  ['expand', /^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z-expand-[1-9]\d*$/],
];

/** The name form of each kind, for people: what an error says a name should look like. */
export const NAME_FORM_TEXT: Readonly<Record<SnapshotKind, string>> = {
  weekly: 'YYYY-MM-DD',
  interval: 'YYYY-MM-DDTHHMMZ',
  expand: 'YYYY-MM-DDTHHMMZ-expand-N',
};

const ANY_TIME = { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY };

/**
 * The folder name of a crawl that started at `startMs` (UTC): `YYYY-MM-DD` for a weekly snapshot,
 * `YYYY-MM-DDTHHMMZ` for an interval crawl, `YYYY-MM-DDTHHMMZ-expand-N` for crawl N (from 1) of a
 * kernel expansion (two crawls of one expansion can start in the same minute; N tells them apart).
 * Names sort chronologically within a kind, and weeklies sort before the interval crawls of their day.
 */
export function snapshotName(kind: SnapshotKind, startMs: number, crawl?: number): string {
  const iso = new Date(startMs).toISOString();
  const day = iso.slice(0, 10);
  if (kind === 'weekly') return day;
  const minute = `${day}T${iso.slice(11, 13)}${iso.slice(14, 16)}Z`;
  if (kind === 'interval') return minute;
  if (crawl === undefined || !Number.isInteger(crawl) || crawl < 1)
    throw new TypeError(`an expand snapshot's name needs its crawl number (from 1), not ${crawl}`);
  return `${minute}-expand-${crawl}`;
}

/**
 * The name of a kernel expansion run whose crawl 1 started at `firstStartMs`: that crawl's folder
 * name without `-expand-1`, so a run is found among the folders by its name.
 */
export function expansionRunName(firstStartMs: number): string {
  return snapshotName('interval', firstStartMs);
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
