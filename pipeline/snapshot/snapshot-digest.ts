import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type DeltaFigures, EMPTY_DELTA, queryDeltaFigures, RDF_TYPE } from './delta-figures.ts';
import { countBy, queryRows, retrievedRdf } from './duckdb-session.ts';
import { corrupt } from './folder-error.ts';
import type { SnapshotManifest } from './manifest.ts';
import type { CheckContext, SnapshotOutput } from './outputs.ts';
import {
  hasTable,
  parquetFileName,
  readTableSql,
  type SchemaVersion,
  SNAPSHOT_SCHEMA_VERSION,
  type TableName,
} from './schema.ts';
import { DOWNLOADED_BODY, type RankedCount } from './snapshot-stats.ts';

/** The file of a snapshot folder that holds its digest. */
export const DIGEST_FILE = 'digest.json';
/**
 * Bumped whenever the digest's shape or queries change: a digest.json of another version is
 * recomputed from the folder's Parquet by whoever reads it (the portal), never trusted.
 */
export const DIGEST_VERSION = 4;
/**
 * The version before `delta` was added; the queries of the other fields are the same. A folder
 * without delta.parquet (schema 1-4) has empty delta figures, so its digest of this version is
 * read as the current one with them, and compared in its own form.
 */
const DIGEST_VERSION_BEFORE_DELTA = 3;
const EXAMPLES = 10;
const CLASSES = 50;

/** Per-PLD figures of one snapshot. */
export interface PldFigures {
  readonly pld: string;
  readonly documents: number;
  readonly statements: number;
  /** Documents that returned RDF (error null or parse). */
  readonly available: number;
  /** Documents compared with a previous observation, and how many of them changed. */
  readonly comparisons: number;
  readonly changed: number;
}

/**
 * What the portal shows about one snapshot beyond its manifest: small (tens of KB for hundreds of
 * PLDs), so a portal can be built from the digests and manifests of old snapshots without their
 * Parquet or dumps.
 */
export interface SnapshotDigest {
  readonly available: number;
  /**
   * Documents whose availability changed since their previous observation (docs/data-dictionary.md,
   * Definitions); here rather than from the manifest, whose count for schema 1-3 folders is wrong
   * (docs/errata.md).
   */
  readonly availabilityChanged: number;
  /** Response bytes downloaded (SnapshotStats.bytes, as corrected for schema 1-3 folders: docs/errata.md). */
  readonly bytes: number;
  /** Kernel documents per re-visit level (0..4) after this crawl. */
  readonly levels: Readonly<Record<string, number>>;
  /** Changed documents by triples added + removed, in buckets. */
  readonly changeDegree: readonly RankedCount[];
  /** Redirect hops by status code. */
  readonly redirectStatuses: Readonly<Record<string, number>>;
  /** The longest redirect chains (crawled URLs: render escaped). */
  readonly redirectChains: ReadonlyArray<{
    readonly url: string;
    readonly hops: number;
    readonly chain: string;
  }>;
  /** One example per error code (crawled URL and server text: render escaped). */
  readonly errorExamples: ReadonlyArray<{
    readonly error: string;
    readonly url: string;
    readonly message: string;
  }>;
  readonly plds: readonly PldFigures[];
  /** Classes the documents declare for themselves, with comparisons and changes of those documents. */
  readonly classes: ReadonlyArray<{
    readonly key: string;
    readonly comparisons: number;
    readonly changed: number;
  }>;
  /** What changed, statement by statement (delta.parquet); empty before schema 5. */
  readonly delta: DeltaFigures;
}

/** digest.json: the digest and the version of the queries that made it. */
interface DigestFile extends SnapshotDigest {
  readonly digestVersion: number;
}

/** Every table of a folder in the current schema's shape, whatever the folder's schema version. */
function folderTables(
  folder: string,
  manifest: { readonly schemaVersion: SchemaVersion; readonly startedAt: string; readonly kind: string },
) {
  return (table: TableName) =>
    `(${readTableSql(join(folder, parquetFileName(table)), table, manifest.schemaVersion, manifest)})`;
}

/** Queries one snapshot's tables (`t` gives each table as SQL) for what its manifest stats do not hold. */
async function queryDigest(
  connection: DuckDBConnection,
  t: (table: TableName) => string,
): Promise<SnapshotDigest> {
  const [[available]] = await queryRows(
    connection,
    `SELECT count(*) FILTER (${retrievedRdf()}) FROM ${t('documents')}`,
  );
  const [[availabilityChanged]] = await queryRows(
    connection,
    `SELECT count(*) FILTER (availability_changed) FROM ${t('changes')}`,
  );
  const [[bytes]] = await queryRows(
    connection,
    `SELECT coalesce(sum(bytes) FILTER (${DOWNLOADED_BODY}), 0) FROM ${t('documents')}`,
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
    availabilityChanged: Number(availabilityChanged),
    bytes: Number(bytes),
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
    delta: await queryDeltaFigures(connection, t),
  };
}

/** The digest of a published folder, queried from its Parquet files. */
export function computeDigest(connection: DuckDBConnection, folder: string, manifest: SnapshotManifest) {
  return queryDigest(connection, folderTables(folder, manifest));
}

function digestText(digest: SnapshotDigest, version = DIGEST_VERSION): string {
  if (version === DIGEST_VERSION_BEFORE_DELTA) {
    const { delta: _, ...before } = digest;
    return `${JSON.stringify({ digestVersion: version, ...before })}\n`;
  }
  const file: DigestFile = { digestVersion: DIGEST_VERSION, ...digest };
  return `${JSON.stringify(file)}\n`;
}

/** Whether a digest.json of `version` holds the current digest of a folder of `manifest`'s schema. */
function isCurrent(version: number, manifest: Pick<SnapshotManifest, 'schemaVersion'>): boolean {
  return (
    version === DIGEST_VERSION ||
    (version === DIGEST_VERSION_BEFORE_DELTA && !hasTable('delta', manifest.schemaVersion))
  );
}

/**
 * The digest a folder publishes, when it publishes one made by the current queries; null for
 * folders published before digests were (or by other queries): the reader computes it then.
 * The caller has checked the folder's files against its manifest.
 */
export async function publishedDigest(
  folder: string,
  manifest: SnapshotManifest,
): Promise<SnapshotDigest | null> {
  if (!manifest.files.some((f) => f.name === DIGEST_FILE)) return null;
  const { digestVersion, ...digest } = JSON.parse(
    await readFile(join(folder, DIGEST_FILE), 'utf8'),
  ) as DigestFile;
  if (!isCurrent(digestVersion, manifest)) return null;
  return digestVersion === DIGEST_VERSION ? digest : { ...digest, delta: EMPTY_DELTA };
}

/** digest.json, written last from the folder's own tables; `verify` recomputes it and compares. */
export const digestOutput: SnapshotOutput = {
  phase: DIGEST_FILE,
  async write({ connection, work, snapshot }) {
    const manifest = { ...snapshot, schemaVersion: SNAPSHOT_SCHEMA_VERSION } as const;
    const digest = await queryDigest(connection, folderTables(work, manifest));
    await writeFile(join(work, DIGEST_FILE), digestText(digest));
    return [{ name: DIGEST_FILE }];
  },
  async check(ctx: CheckContext) {
    if (!ctx.manifest.files.some((f) => f.name === DIGEST_FILE)) return; // published before digests
    const text = await readFile(join(ctx.folder, DIGEST_FILE), 'utf8');
    const { digestVersion } = JSON.parse(text) as DigestFile;
    // other queries: readers recompute, nothing to compare
    if (!isCurrent(digestVersion, ctx.manifest)) return;
    const digest = await computeDigest(ctx.connection, ctx.folder, ctx.manifest);
    if (text !== digestText(digest, digestVersion))
      throw corrupt(ctx.folder, `${DIGEST_FILE} is not the digest of the folder's tables`);
  },
};
