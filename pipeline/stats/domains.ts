import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parquetFileName, queryRows, readTableSql, type SnapshotManifest } from '../snapshot/index.ts';
import { timeChart } from './charts.ts';
import { weeklyTrend } from './latest-alias.ts';
import type { DataTable, DomainDocuments, DomainView, PldFigures, SnapshotView } from './portal-data.ts';

/** Documents listed on a PLD's page (the rest are a query away: the page says how). */
const LISTED_DOCUMENTS = 50;

/**
 * Per PLD, its documents in one snapshot (the first LISTED_DOCUMENTS by URL, with status, error,
 * format and statements) and its errors by code with an example: one query over documents.parquet.
 */
export async function queryDomainDocuments(
  connection: DuckDBConnection,
  folder: string,
  manifest: SnapshotManifest,
): Promise<Map<string, DomainDocuments>> {
  // in the current schema's shape, whatever the folder's schema version
  const file = join(folder, parquetFileName('documents'));
  const documents = `(${readTableSql(file, 'documents', manifest.schemaVersion, manifest)})`;
  const listed = await queryRows(
    connection,
    `SELECT pld, url, status, error, format, statements, count(*) OVER (PARTITION BY pld) FROM ${documents}
     QUALIFY row_number() OVER (PARTITION BY pld ORDER BY url) <= ${LISTED_DOCUMENTS} ORDER BY pld, url`,
  );
  const errors = await queryRows(
    connection,
    `SELECT pld, error, count(*), min(url) FROM ${documents} WHERE error IS NOT NULL
     GROUP BY ALL ORDER BY pld, 3 DESC, error`,
  );
  const out = new Map<string, { documents: number; listed: unknown[][]; errors: unknown[][] }>();
  const entry = (pld: unknown) => {
    const key = String(pld);
    const e = out.get(key) ?? { documents: 0, listed: [], errors: [] };
    out.set(key, e);
    return e;
  };
  for (const [pld, url, status, error, format, statements, total] of listed) {
    const e = entry(pld);
    e.documents = Number(total);
    e.listed.push([String(url), status === null ? null : Number(status), error, format, Number(statements)]);
  }
  for (const [pld, error, count, example] of errors)
    entry(pld).errors.push([String(error), Number(count), String(example)]);
  return new Map(
    [...out].map(([pld, e]) => [
      pld,
      {
        documents: e.documents,
        listed: {
          columns: ['document', 'status', 'error', 'format', 'statements'],
          rows: e.listed as DataTable['rows'],
        },
        errors: { columns: ['error', 'documents', 'example'], rows: e.errors as DataTable['rows'] },
      },
    ]),
  );
}

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

/**
 * Every PLD of the weekly snapshots with its figures per weekly snapshot (interval crawls add
 * changes only), a chart of its size and availability over them, and its documents and errors in
 * `latest` (the latest weekly snapshot, queried by `queryDomainDocuments`).
 */
export async function domainViews(
  snapshots: readonly SnapshotView[],
  latest: ReadonlyMap<string, DomainDocuments>,
): Promise<DomainView[]> {
  const trend = weeklyTrend(snapshots);
  const startOf = new Map(trend.map((s) => [s.name, s.startedAt]));
  const series = new Map<string, Array<PldFigures & { snapshot: string }>>();
  const dynamics = new Map<string, { comparisons: number; changed: number }>();
  for (const s of trend)
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
  const views: DomainView[] = [];
  for (const [pld, list] of [...series].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const at = (p: { snapshot: string }) => startOf.get(p.snapshot) ?? '';
    const chart = await timeChart(
      {
        id: 'size-availability',
        title: `Documents of ${pld} per weekly snapshot`,
        summary: `Documents of ${pld} attempted in each weekly snapshot, and how many of them returned RDF.`,
        yTitle: 'documents',
        compact: true,
      },
      [
        ...list.map((p) => ({ at: at(p), series: 'attempted', value: p.documents })),
        ...list.map((p) => ({ at: at(p), series: 'returned RDF', value: p.available })),
      ],
      list.map(at),
    );
    views.push({
      pld,
      slug: domainSlug(pld),
      series: list,
      comparisons: dynamics.get(pld)?.comparisons ?? 0,
      changed: dynamics.get(pld)?.changed ?? 0,
      chart,
      latest: latest.get(pld) ?? null,
    });
  }
  return views;
}
