import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  listSnapshots,
  openDuckDb,
  readManifest,
  SNAPSHOT_SCHEMA_VERSION,
  sqlString,
} from '../../pipeline/snapshot/index.ts';

/** A check of the year's end: passed or not, with the figures that say so. */
export interface CheckResult {
  readonly name: string;
  readonly passed: boolean;
  readonly detail: string;
}

/** The URL a request or a documents row names, in one spelling (percent-encoding, case of the host). */
export function sameUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/**
 * Nothing lost: every URL the simulated Web answered with 200 or 304 (robots.txt aside) is in a
 * published snapshot, as a document's URL or final URL or a redirect hop, in any kind of snapshot
 * (weekly, interval, expand).
 */
export async function nothingLost(root: string, answered: ReadonlyMap<string, number>): Promise<CheckResult> {
  const snapshots = await listSnapshots(root);
  const files = (table: string) =>
    `[${snapshots.map((s) => sqlString(join(root, s.name, `${table}.parquet`))).join(', ')}]`;
  const session = await openDuckDb();
  const published = new Set<string>();
  try {
    const reader = await session.connection.runAndReadAll(
      `SELECT url FROM read_parquet(${files('documents')}, union_by_name = true)
       UNION SELECT final_url FROM read_parquet(${files('documents')}, union_by_name = true) WHERE final_url IS NOT NULL
       UNION SELECT from_url FROM read_parquet(${files('redirects')}, union_by_name = true)
       UNION SELECT to_url FROM read_parquet(${files('redirects')}, union_by_name = true)`,
    );
    for (const [url] of reader.getRows() as [string][]) published.add(sameUrl(url));
  } finally {
    session.close();
  }
  const lost = [...answered]
    .filter(([u]) => !published.has(sameUrl(u)))
    .map(([u, at]) => `${u} (answered at ${new Date(at).toISOString().slice(0, 16)})`);
  return {
    name: 'nothing lost (every URL the server answered 200 or 304 is in a snapshot)',
    passed: lost.length === 0,
    detail: `${answered.size} URLs answered, ${lost.length} in no snapshot${lost.length ? `: ${lost.slice(0, 10).join(' ')}` : ''}`,
  };
}

/** Every file under `dir` (relative path -> SHA-256), symbolic links followed. */
function fileHashes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

/** The site built week by week against a build from nothing: the same files with the same bytes. */
export function sameSite(weekByWeek: string, fromScratch: string): CheckResult {
  const a = fileHashes(weekByWeek);
  const b = fileHashes(fromScratch);
  const differ = [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f)).sort();
  const describe = (f: string) =>
    !a.has(f) ? `${f} (only from scratch)` : !b.has(f) ? `${f} (only week by week)` : f;
  return {
    name: 'the portal built week by week equals a build from scratch',
    passed: differ.length === 0,
    detail: `${a.size} files week by week, ${b.size} from scratch, ${differ.length} differ${differ.length ? `: ${differ.slice(0, 8).map(describe).join(', ')}` : ''}`,
  };
}

/**
 * The upgrade did not mix parsers: no snapshot published in this version's schema holds a document
 * fetched before the upgrade (by the old version, whose crawl the new one took over).
 */
export async function noOldParses(root: string, upgradeAt: number): Promise<CheckResult> {
  const newer: string[] = [];
  for (const s of await listSnapshots(root))
    if ((await readManifest(join(root, s.name))).schemaVersion === SNAPSHOT_SCHEMA_VERSION)
      newer.push(s.name);
  const name = `no snapshot of schema ${SNAPSHOT_SCHEMA_VERSION} holds a document the old version fetched`;
  if (newer.length === 0) return { name, passed: false, detail: 'no snapshot of this schema was published' };
  const session = await openDuckDb();
  try {
    const files = newer.map((n) => sqlString(join(root, n, 'documents.parquet'))).join(', ');
    const rows = (
      await session.connection.runAndReadAll(
        `SELECT snapshot, count(*) FROM read_parquet([${files}], union_by_name = true)
         WHERE fetched_at < to_timestamp(${upgradeAt / 1000}) GROUP BY snapshot ORDER BY snapshot`,
      )
    ).getRows() as [string, bigint][];
    return {
      name,
      passed: rows.length === 0,
      detail: `${newer.length} snapshots of schema ${SNAPSHOT_SCHEMA_VERSION}${rows.length ? `; fetched before the upgrade: ${rows.map(([n, c]) => `${c} in ${n}`).join(', ')}` : ', none holds one'}`,
    };
  } finally {
    session.close();
  }
}
