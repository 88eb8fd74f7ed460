import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  countBy,
  parquetFileName,
  queryRows,
  readManifest,
  readTableSql,
  retrievedRdf,
  type TableName,
} from '../snapshot/index.ts';
import type { SnapshotDigest } from './portal-data.ts';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
/** Bumped whenever the digest's shape or queries change, so cached digests are recomputed. */
const DIGEST_VERSION = 2;
const EXAMPLES = 10;
const CLASSES = 50;

/** Queries one snapshot's files for what its manifest stats do not hold. */
async function queryDigest(connection: DuckDBConnection, folder: string): Promise<SnapshotDigest> {
  // every table in the current schema's shape, whatever the folder's schema version
  const manifest = await readManifest(folder);
  const t = (table: TableName) =>
    `(${readTableSql(join(folder, parquetFileName(table)), table, manifest.schemaVersion, manifest)})`;
  const [[available]] = await queryRows(
    connection,
    `SELECT count(*) FILTER (${retrievedRdf()}) FROM ${t('documents')}`,
  );
  const degree = await queryRows(
    connection,
    `SELECT CASE WHEN n <= 1 THEN '1' WHEN n <= 5 THEN '2-5' WHEN n <= 20 THEN '6-20'
       WHEN n <= 100 THEN '21-100' ELSE 'over 100' END AS bucket, count(*), min(n)
     FROM (SELECT coalesce(added, 0) + coalesce(removed, 0) AS n FROM ${t('changes')} WHERE changed)
     GROUP BY 1 ORDER BY 3`,
  );
  const chains = await queryRows(
    connection,
    `SELECT url, count(*), string_agg(to_url, ' -> ' ORDER BY hop) FROM ${t('redirects')}
     GROUP BY url ORDER BY 2 DESC, url LIMIT ${EXAMPLES}`,
  );
  const errors = await queryRows(
    connection,
    `SELECT error, arg_min(url, url), arg_min(coalesce(error_message, ''), url) FROM ${t('documents')}
     WHERE error IS NOT NULL GROUP BY error ORDER BY error`,
  );
  const plds = await queryRows(
    connection,
    // statements once per graph: a graph reached through several URLs counts for the row that downloaded it
    `SELECT d.pld, count(*), coalesce(sum(d.statements) FILTER (d.downloaded_by = d.url), 0),
       count(*) FILTER (${retrievedRdf('d.error')}),
       count(c.changed), count(*) FILTER (c.changed)
     FROM ${t('documents')} AS d LEFT JOIN ${t('changes')} AS c USING (url)
     GROUP BY d.pld ORDER BY 2 DESC, 1`,
  );
  // classes a document declares for itself: read from quads once per snapshot, then cached
  const classes = await queryRows(
    connection,
    `WITH typed AS (SELECT DISTINCT graph, object AS class FROM ${t('quads')}
       WHERE predicate = '${RDF_TYPE}' AND object_kind = 'iri' AND subject = graph)
     SELECT t.class, count(c.changed), count(*) FILTER (c.changed)
     FROM typed AS t JOIN ${t('documents')} AS d ON d.final_url = t.graph JOIN ${t('changes')} AS c USING (url)
     GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${CLASSES}`,
  );
  return {
    available: Number(available),
    levels: await countBy(connection, `SELECT level, count(*) FROM ${t('schedule')} GROUP BY 1 ORDER BY 1`),
    changeDegree: degree.map(([key, count]) => ({ key: String(key), count: Number(count) })),
    redirectStatuses: await countBy(
      connection,
      `SELECT status, count(*) FROM ${t('redirects')} GROUP BY 1 ORDER BY 1`,
    ),
    redirectChains: chains.map(([url, hops, chain]) => ({
      url: String(url),
      hops: Number(hops),
      chain: String(chain),
    })),
    errorExamples: errors.map(([error, url, message]) => ({
      error: String(error),
      url: String(url),
      message: String(message),
    })),
    plds: plds.map(([pld, documents, statements, avail, comparisons, changed]) => ({
      pld: String(pld),
      documents: Number(documents),
      statements: Number(statements),
      available: Number(avail),
      comparisons: Number(comparisons),
      changed: Number(changed),
    })),
    classes: classes.map(([key, comparisons, changed]) => ({
      key: String(key),
      comparisons: Number(comparisons),
      changed: Number(changed),
    })),
  };
}

/** Where the digest of the snapshot whose manifest has this SHA-256 is cached. */
export function digestCachePath(cacheDir: string, manifestSha256: string): string {
  return join(cacheDir, `digest-v${DIGEST_VERSION}-${manifestSha256}.json`);
}

/** The cached digest of the snapshot whose manifest has this SHA-256, or null. */
export async function cachedDigest(cacheDir: string, manifestSha256: string): Promise<SnapshotDigest | null> {
  try {
    return JSON.parse(await readFile(digestCachePath(cacheDir, manifestSha256), 'utf8')) as SnapshotDigest;
  } catch {
    return null; // not cached yet (or unreadable): to be computed
  }
}

/**
 * The digest of one snapshot, computed once and cached under `cacheDir` by the manifest's SHA-256
 * (which pins every file): a rebuild queries only snapshots it has not seen, so its cost grows
 * with the number of new snapshots, not with the quads of old ones.
 */
export async function snapshotDigest(
  connection: DuckDBConnection,
  folder: string,
  manifestSha256: string,
  cacheDir: string,
): Promise<SnapshotDigest> {
  const cached = await cachedDigest(cacheDir, manifestSha256);
  if (cached) return cached;
  const digest = await queryDigest(connection, folder);
  await mkdir(cacheDir, { recursive: true });
  await writeFile(digestCachePath(cacheDir, manifestSha256), JSON.stringify(digest));
  return digest;
}
