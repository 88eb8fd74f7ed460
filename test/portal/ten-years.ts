/**
 * A synthetic ten-year series for the portal, without crawling: `weeks` weekly snapshots and
 * `intervals` interval snapshots spread over the weeks, each with its catalogue entry, manifest.json,
 * SHA256SUMS, a real documents.parquet and changes.parquet (what the history queries and the
 * domain pages read), and its per-snapshot digest written into the portal's digest cache (as
 * publishing would, issue #16). The manifest also lists the dump and the other tables with
 * plausible sizes, but those files are not written: build with a `downloadsUrl` elsewhere, so that
 * the portal does not link them. Deterministic: the same arguments give the same bytes.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CATALOGUE_FILE,
  type CatalogueEntry,
  EMPTY_DELTA,
  formatCatalogue,
  openDuckDb,
  snapshotName,
  TABLES,
} from '../../pipeline/snapshot/index.ts';
import { digestCachePath } from '../../pipeline/stats/digest-cache.ts';
import type { SnapshotDigest } from '../../pipeline/stats/portal-data.ts';

const WEEK = 7 * 86_400_000;
const PLDS = 40;
const DOCS_PER_PLD = 10;
const CHUNK = 250;
/** Files every published folder has besides the two written here (not written: see above). */
const ABSENT = ['data.nq.gz', 'quads.parquet', 'redirects.parquet', 'schedule.parquet'];

export interface TenYearsOptions {
  readonly root: string;
  /** The portal's digest cache (`<data>/cache`). */
  readonly cacheDir: string;
  readonly weeks?: number;
  readonly intervals?: number;
  /** Monday 00:00 UTC of the first week. */
  readonly start?: number;
}

interface Planned {
  readonly index: number;
  readonly name: string;
  readonly kind: 'weekly' | 'interval';
  readonly startMs: number;
}

/** Snapshots oldest first: each week's weekly crawl, then its share of the interval crawls in slots across the week. */
function plan(weeks: number, intervals: number, start: number): Planned[] {
  const out: Planned[] = [];
  const slot = Math.floor(WEEK / 17 / 60_000) * 60_000;
  for (let w = 0; w < weeks; w++) {
    const at = start + w * WEEK;
    out.push({ index: out.length, name: snapshotName('weekly', at), kind: 'weekly', startMs: at });
    const n = Math.floor(((w + 1) * intervals) / weeks) - Math.floor((w * intervals) / weeks);
    for (let k = 1; k <= n; k++) {
      const t = at + k * slot;
      out.push({ index: out.length, name: snapshotName('interval', t), kind: 'interval', startMs: t });
    }
  }
  return out;
}

/** A deterministic number in [0, 1) from a seed (mulberry32's mixing). */
function unit(seed: number): number {
  let t = (seed + 0x6d2b79f5) | 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (seed: number, max: number) => Math.floor(unit(seed) * max);
const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const ended = (p: Planned) => iso(p.startMs + (p.kind === 'weekly' ? 3_600_000 : 600_000));
const pldName = (p: number) => `pld${String(p).padStart(2, '0')}.example`;

/**
 * Rows of every snapshot in one query, written as one Parquet file per snapshot: a weekly crawl
 * attempts about nine in ten of the PLDs' documents, an interval crawl about one in twelve of the
 * kernel (the ones "due"); a tenth of attempts fail, and a document's change rate is its own.
 */
async function writeTables(
  root: string,
  work: string,
  planned: readonly Planned[],
): Promise<Map<string, number>> {
  const session = await openDuckDb();
  try {
    const c = session.connection;
    const list = join(work, 'snapshots.json');
    await writeFile(
      list,
      planned
        .map((p) => JSON.stringify({ i: p.index, name: p.name, kind: p.kind, ts: iso(p.startMs) }))
        .join('\n'),
    );
    await c.run(`CREATE TABLE snaps AS SELECT i::INTEGER AS i, name, kind, ts::TIMESTAMPTZ AS ts
                 FROM read_json('${list}', format = 'newline_delimited')`);
    await c.run(`CREATE TABLE urls AS SELECT p, d, 'http://' || 'pld' || lpad(p::VARCHAR, 2, '0') || '.example/doc/' || d AS url,
                   'pld' || lpad(p::VARCHAR, 2, '0') || '.example' AS pld, d < 6 AS kernel
                 FROM range(${PLDS}) AS a(p), range(${DOCS_PER_PLD}) AS b(d)`);
    const h = (salt: string) => `(hash(u.url, s.i, '${salt}') % 1000)::INTEGER`;
    await c.run(`CREATE TABLE obs AS SELECT s.i, s.name, s.kind, s.ts, u.url, u.pld, u.kernel,
                   s.ts + to_seconds(${h('t')} * 0.6) AS fetched_at,
                   CASE WHEN ${h('e')} < 60 THEN 'timeout' WHEN ${h('e')} < 100 THEN 'http_404' END AS error,
                   ${h('c')} < (hash(u.url) % 600)::INTEGER AS changes_now
                 FROM snaps AS s, urls AS u
                 WHERE (s.kind = 'weekly' AND ${h('w')} < 900) OR (s.kind = 'interval' AND u.kernel AND ${h('w')} < 85)`);
    await c.run(`CREATE OR REPLACE TABLE obs AS SELECT *, lag(name) OVER w AS previous_name, lag(fetched_at) OVER w AS previous_fetched_at
                 FROM obs WINDOW w AS (PARTITION BY url ORDER BY i)`);
    const documents: Record<string, string> = {
      snapshot: 'name',
      snapshot_start: 'ts',
      kind: 'kind',
      segment: "CASE WHEN kernel THEN 'kernel' ELSE 'adaptive' END",
      round: '0',
      url: 'url',
      final_url: 'url',
      downloaded_by: 'url',
      pld: 'pld',
      fetched_at: 'fetched_at',
      status: "CASE error WHEN 'timeout' THEN NULL WHEN 'http_404' THEN 404 ELSE 200 END",
      error: 'error',
      format: "CASE WHEN error IS NULL THEN 'turtle' END",
      statements: 'CASE WHEN error IS NULL THEN 20 + hash(url) % 200 ELSE 0 END',
    };
    const changes: Record<string, string> = {
      snapshot: 'name',
      snapshot_start: 'ts',
      kind: 'kind',
      url: 'url',
      previous_snapshot: 'previous_name',
      previous_fetched_at: 'previous_fetched_at',
      changed:
        'CASE WHEN i < 30 OR error IS NOT NULL OR previous_name IS NULL THEN NULL ELSE changes_now END',
      added: 'CASE WHEN changes_now THEN 1 + hash(url, i) % 40 END',
      removed: 'CASE WHEN changes_now THEN hash(url, i) % 30 END',
    };
    for (const [table, exprs] of [
      ['documents', documents],
      ['changes', changes],
    ] as const) {
      const columns = TABLES[table].map(
        (col) => `(${exprs[col.name] ?? 'NULL'})::${col.type} AS "${col.name}"`,
      );
      // a few hundred snapshots per COPY: DuckDB keeps a buffer per open partition
      for (let from = 0; from < planned.length; from += CHUNK) {
        const dir = join(work, `${table}-${from}`);
        await c.run(`COPY (SELECT ${columns.join(', ')}, name AS part FROM obs
                           WHERE i >= ${from} AND i < ${from + CHUNK} ORDER BY i, url)
                     TO '${dir}' (FORMAT parquet, PARTITION_BY (part))`);
        for (const p of planned.slice(from, from + CHUNK)) {
          const [file] = await readdir(join(dir, `part=${p.name}`));
          await rename(join(dir, `part=${p.name}`, file), join(root, p.name, `${table}.parquet`));
        }
      }
    }
    const rows = (await c.runAndReadAll('SELECT name, count(*) FROM obs GROUP BY 1')).getRows();
    return new Map(rows.map(([name, n]) => [String(name), Number(n)]));
  } finally {
    session.close();
  }
}

/** A plausible digest of snapshot `p` (not derived from its Parquet rows: the portal reads it as given). */
function digest(p: Planned, documents: number): SnapshotDigest {
  const s = p.index * 7919;
  const plds = Array.from({ length: p.kind === 'weekly' ? PLDS : 12 }, (_, k) => {
    const docs = p.kind === 'weekly' ? 7 + int(s + k, 4) : 1 + int(s + k, 3);
    const comparisons = int(s + k + 1, docs + 1);
    return {
      pld: pldName((k * 7 + (p.kind === 'weekly' ? 0 : p.index)) % PLDS),
      documents: docs,
      statements: docs * (40 + int(s + k + 2, 200)),
      available: docs - int(s + k + 3, 2),
      comparisons,
      changed: int(s + k + 4, comparisons + 1),
    };
  }).sort((a, b) => b.documents - a.documents || (a.pld < b.pld ? -1 : 1));
  return {
    available: documents - int(s + 5, Math.max(1, Math.floor(documents / 10))),
    // as the manifest states them (manifestOf): synthetic folders carry no erratum
    availabilityChanged: int(p.index * 104_729 + 9, 8),
    bytes: documents * (60 + int(p.index * 104_729, 40)) * 90,
    levels: Object.fromEntries([0, 1, 2, 3, 4].map((l) => [String(l), 40 + int(s + l, 200 >> l)])),
    changeDegree: ['1', '2-5', '6-20', '21-100', 'over 100'].map((key, k) => ({
      key,
      count: int(s + 10 + k, 60 >> k),
    })),
    redirectStatuses: { '301': int(s + 20, 30), '302': int(s + 21, 10), '303': int(s + 22, 40) },
    redirectChains: Array.from({ length: 3 }, (_, k) => ({
      url: `http://${pldName(k)}/r/${k}`,
      hops: 3 - k,
      chain: `http://${pldName(k)}/a -> http://${pldName(k)}/b`,
    })),
    errorExamples: [
      { error: 'timeout', url: `http://${pldName(int(s, PLDS))}/doc/1`, message: 'no response within 30 s' },
    ],
    plds,
    classes: Array.from({ length: 20 }, (_, k) => {
      const comparisons = 5 + int(s + 30 + k, 80);
      return {
        key: `http://vocab.example/Class${k}`,
        comparisons,
        changed: int(s + 60 + k, comparisons + 1),
      };
    }),
    // schema 2 folders publish no delta.parquet
    delta: EMPTY_DELTA,
  };
}

function manifestOf(
  p: Planned,
  previous: string | null,
  files: { name: string; bytes: number; sha256: string; rows?: number }[],
  documents: number,
) {
  const s = p.index * 104_729;
  const statements = documents * (60 + int(s, 40));
  const changed = int(s + 1, Math.max(1, Math.floor(documents / 3)));
  return {
    schemaVersion: 2,
    name: p.name,
    kind: p.kind,
    startedAt: iso(p.startMs),
    endedAt: ended(p),
    softwareVersion: 'synthetic',
    config: {},
    inputFingerprint: sha(`input ${p.name}`),
    previousSnapshots: previous ? [previous] : [],
    counts: { documents, statements, redirects: int(s + 2, 80), changes: documents, schedule: documents },
    stats: {
      documents,
      bytes: statements * 90,
      statements,
      distinctSubjects: Math.floor(statements / 6),
      distinctPredicates: 40 + int(s + 3, 20),
      distinctClasses: 15 + int(s + 4, 10),
      literals: Math.floor(statements / 3),
      distinctBlankNodes: int(s + 5, 300),
      redirectHops: int(s + 6, 80),
      redirectedDocuments: int(s + 7, 40),
      byStatus: { '200': documents - Math.floor(documents / 10), '404': Math.floor(documents / 25) },
      byError: { timeout: Math.floor(documents / 16), http_404: Math.floor(documents / 25) },
      byFormat: { turtle: documents - Math.floor(documents / 10) },
      bySegment:
        p.kind === 'weekly'
          ? { kernel: Math.floor((documents * 3) / 5), adaptive: documents - Math.floor((documents * 3) / 5) }
          : { kernel: documents },
      plds: {
        total: p.kind === 'weekly' ? PLDS : 12,
        top: Array.from({ length: 10 }, (_, k) => ({
          key: pldName((k * 3 + p.index) % PLDS),
          count: 12 - k,
        })),
      },
      topClasses: Array.from({ length: 10 }, (_, k) => ({
        key: `http://vocab.example/Class${k}`,
        count: 500 - k * 40,
      })),
      topPredicates: Array.from({ length: 10 }, (_, k) => ({
        key: `http://vocab.example/p${k}`,
        count: 900 - k * 70,
      })),
      changes: {
        changed,
        unchanged: documents - changed - Math.floor(documents / 10),
        new: p.index < 30 ? Math.floor(documents / 10) : int(s + 8, 3),
        notComparable: Math.floor(documents / 10),
        availabilityChanged: int(s + 9, 8),
        triplesAdded: changed * 12,
        triplesRemoved: changed * 9,
      },
    },
    files,
  };
}

/**
 * Writes the series into `root` (a fresh folder), the digests into `cacheDir` and index.json
 * listing every snapshot; returns the catalogue entries, oldest first, so that a caller can
 * publish fewer with `publishEntries`.
 */
export async function writeTenYears(o: TenYearsOptions): Promise<CatalogueEntry[]> {
  const planned = plan(o.weeks ?? 520, o.intervals ?? 8000, o.start ?? Date.UTC(2016, 10, 7));
  const work = join(o.root, '.generate');
  await mkdir(work, { recursive: true });
  await mkdir(o.cacheDir, { recursive: true });
  for (const p of planned) await mkdir(join(o.root, p.name), { recursive: true });
  const rows = await writeTables(o.root, work, planned);
  await rm(work, { recursive: true, force: true });
  const entries: CatalogueEntry[] = [];
  for (const p of planned) {
    const folder = join(o.root, p.name);
    const real = await Promise.all(
      ['documents.parquet', 'changes.parquet'].map(async (name) => {
        const bytes = await readFile(join(folder, name));
        return { name, bytes: bytes.length, sha256: sha(bytes), rows: rows.get(p.name) ?? 0 };
      }),
    );
    const documents = rows.get(p.name) ?? 0;
    const files = [
      ...ABSENT.map((name, k) => ({
        name,
        bytes: 50_000 + int(p.index * 31 + k, 400_000),
        sha256: sha(`${p.name}/${name}`),
      })),
      ...real,
    ].sort((a, b) => (a.name < b.name ? -1 : 1));
    const manifest = `${JSON.stringify(manifestOf(p, p.index > 0 ? planned[p.index - 1].name : null, files, documents), null, 2)}\n`;
    await writeFile(join(folder, 'manifest.json'), manifest);
    await writeFile(join(folder, 'SHA256SUMS'), files.map((f) => `${f.sha256}  ${f.name}\n`).join(''));
    const manifestSha256 = sha(manifest);
    await writeFile(digestCachePath(o.cacheDir, manifestSha256), JSON.stringify(digest(p, documents)));
    entries.push({
      name: p.name,
      kind: p.kind,
      startedAt: iso(p.startMs),
      endedAt: ended(p),
      publishedAt: iso(p.startMs + 3_700_000),
      documents,
      statements: JSON.parse(manifest).stats.statements,
      manifestSha256,
    });
  }
  await publishEntries(o.root, entries);
  return entries;
}

/** Rewrites index.json to list `entries`: what publishing a snapshot does to the catalogue. */
export function publishEntries(root: string, entries: readonly CatalogueEntry[]): Promise<void> {
  return writeFile(join(root, CATALOGUE_FILE), formatCatalogue(entries));
}
