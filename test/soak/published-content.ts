import { openDuckDb, sqlString } from '../../pipeline/snapshot/index.ts';

/**
 * Columns of documents.parquet that an uninterrupted and a resumed crawl of the same simulated Web
 * must agree on. Left out, because they measure the run rather than the Web: fetched_at, duration_ms,
 * round (the round-end rule looks at the wall clock) and headers (Date, and so on).
 */
const DOCUMENT_COLUMNS = [
  'url',
  'segment',
  'final_url',
  'status',
  'error',
  'content_type',
  'format',
  'bytes',
  'statements',
  'content_sha256',
  'graph_hash',
  'etag',
  'last_modified',
  'redirects',
];

/** What a published snapshot holds, as sorted lines that two runs can be compared on. */
export interface PublishedContent {
  /** One line per documents.parquet row (DOCUMENT_COLUMNS), sorted. */
  readonly documents: string[];
  /** One line per quads.parquet row, sorted. */
  readonly quads: string[];
  /** URLs that occur in more than one documents row. */
  readonly duplicateUrls: string[];
}

/** Reads a published snapshot folder's documents and quads for comparison. */
export async function publishedContent(folder: string): Promise<PublishedContent> {
  const db = await openDuckDb();
  const rows = async (sql: string) =>
    (await db.connection.runAndReadAll(sql)).getRows().map((r) => String(r[0]));
  try {
    const docs = sqlString(`${folder}/documents.parquet`);
    const quads = sqlString(`${folder}/quads.parquet`);
    const line = DOCUMENT_COLUMNS.map((c) => `coalesce(CAST("${c}" AS VARCHAR), '∅')`).join(` || ' ' || `);
    return {
      documents: await rows(`SELECT ${line} AS l FROM read_parquet(${docs}) ORDER BY l`),
      quads: await rows(
        `SELECT concat_ws(' ', graph, subject, predicate, object, object_kind, coalesce(datatype, ''), coalesce(lang, ''),
            coalesce(direction, ''), coalesce(source_graph, '')) AS l FROM read_parquet(${quads}) ORDER BY l`,
      ),
      duplicateUrls: await rows(
        `SELECT url FROM read_parquet(${docs}) GROUP BY url HAVING count(*) > 1 ORDER BY url`,
      ),
    };
  } finally {
    db.close();
  }
}

/** The first lines where two sorted lists differ, for a readable failure (empty: equal). */
export function firstDifferences(a: readonly string[], b: readonly string[], most = 5): string[] {
  const inA = new Set(a);
  const inB = new Set(b);
  const onlyA = a
    .filter((l) => !inB.has(l))
    .slice(0, most)
    .map((l) => `- ${l}`);
  const onlyB = b
    .filter((l) => !inA.has(l))
    .slice(0, most)
    .map((l) => `+ ${l}`);
  const counts = a.length === b.length ? [] : [`${a.length} lines against ${b.length}`];
  return [...counts, ...onlyA, ...onlyB];
}
