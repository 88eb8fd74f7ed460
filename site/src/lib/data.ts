// Reads the portal's data (portal.json, written by pipeline/stats) once per build.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PORTAL_DATA_FILE,
  type PortalData,
  RENDERED_PAGES_FILE,
  type SnapshotView,
} from '../../../pipeline/stats/portal-data.ts';
import { REPLAY_INFO_FILE, type ReplayInfo } from '../../../pipeline/portal/replay-bundle.ts';
import { SOURCE_REPOSITORY } from '../../../pipeline/stats/source-repository.ts';

const dir = process.env.OBSERVATORY_PORTAL_DATA ?? new URL('../data/generated', import.meta.url).pathname;

/** The portal's data, as pipeline/stats wrote it. */
export const data: PortalData = JSON.parse(readFileSync(join(dir, PORTAL_DATA_FILE), 'utf8'));

/** The WACZ the Replay page opens (pipeline/portal/replay-archive.ts); null when the build published none. */
export const replay: ReplayInfo | null = (() => {
  try {
    return JSON.parse(readFileSync(join(dir, REPLAY_INFO_FILE), 'utf8'));
  } catch {
    return null;
  }
})();

/**
 * The snapshots whose pages this build renders: those pipeline/portal/page-cache.ts did not find in
 * its cache (every snapshot when the list is absent, as in `astro dev`).
 */
export const renderedSnapshots: readonly SnapshotView[] = (() => {
  let names: string[];
  try {
    names = JSON.parse(readFileSync(join(dir, RENDERED_PAGES_FILE), 'utf8'));
  } catch {
    return data.snapshots;
  }
  const wanted = new Set(names);
  return data.snapshots.filter((s) => wanted.has(s.name));
})();

/** The path the site is mounted at, ending in `/`. */
export const base = new URL(data.baseUrl).pathname;

/** A link to a page or file of the site: `page('snapshots/')` -> `/base/snapshots/`. */
export function page(path = ''): string {
  return `${base}${path}`;
}

/** A URL as a link: under the site's own base URL it becomes a path, so a local copy of the site works. */
export function local(url: string): string {
  return url.startsWith(data.baseUrl) ? `${base}${url.slice(data.baseUrl.length)}` : url;
}

/** The latest snapshot, and the latest weekly one (named by pipeline/stats, whose rule it is). */
export const latest: SnapshotView = data.snapshots[data.snapshots.length - 1];
export const latestWeekly: SnapshotView = data.snapshots.find((s) => s.name === data.latestWeekly) ?? latest;

/** 12,345 */
export function n(value: number): string {
  return value.toLocaleString('en-US');
}

/** 12.3% */
export function pct(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '–';
}

/** 1.2 MiB */
export function size(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${bytes} bytes` : `${v.toFixed(1)} ${units[i]}`;
}

/**
 * 2026-11-02 00:00:05 UTC: to the second, since a crawl of the small Web of a demo or a test starts
 * and ends within one minute (to the minute, both read the same).
 */
export function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** `1 redirect hop`, `2 redirect hops`, `1,024 documents`: a count with its noun in the right number. */
export function count(value: number, singular: string, plural = `${singular}s`): string {
  return `${n(value)} ${value === 1 ? singular : plural}`;
}

/** A file of the project's repository (`docs/crawling.md#x`) on its host, where the About page links the source. */
export function sourceFile(path: string): string {
  const [file, anchor] = path.split('#');
  const kind = file.endsWith('/') ? 'tree' : 'blob';
  return `${SOURCE_REPOSITORY}/${kind}/HEAD/${file}${anchor === undefined ? '' : `#${anchor}`}`;
}

/** Rows of a value -> count record, largest first. */
export function entries(record: Readonly<Record<string, number>>): Array<[string, number]> {
  return Object.entries(record).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** The share of compared documents that changed. */
export function changedShare(s: SnapshotView): string {
  return pct(s.stats.changes.changed, s.stats.changes.changed + s.stats.changes.unchanged);
}
