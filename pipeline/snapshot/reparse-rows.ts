import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CrawledDocument, DocumentRecord, Statement } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import { RECORD_FIELDS } from './document-columns.ts';
import { sqlString } from './duckdb-session.ts';
import { graphOf, publishedQuadsSql, QUAD_COLUMNS, toStatement } from './published-quads.ts';
import { parquetFileName } from './schema.ts';

const table = (folder: string, name: 'documents' | 'redirects' | 'quads') =>
  `read_parquet(${sqlString(join(folder, parquetFileName(name)))})`;

/**
 * The documents.parquet rows that `where` selects, as the crawl journal's document records: the
 * published row's fields, its redirect hops from redirects.parquet, `statements` as parsed
 * (parsed_statements), and `downloadedBy` only where another fetch downloaded the final URL, as
 * the crawler writes it.
 */
function recordsSql(folder: string, where: string): string {
  return `SELECT to_json(struct_pack(${RECORD_FIELDS}))::VARCHAR
    FROM ${table(folder, 'documents')} AS d LEFT JOIN (SELECT url, list(struct_pack("from" := from_url,
        "to" := to_url, status := status, "at" := epoch_ms("at")) ORDER BY hop) AS hops
      FROM ${table(folder, 'redirects')} GROUP BY url) AS r USING (url)
    WHERE ${where}`;
}

/** The rows of `sql`, read from DuckDB chunk by chunk (the connection runs nothing else meanwhile). */
export async function* streamRows(connection: DuckDBConnection, sql: string): AsyncGenerator<unknown[]> {
  const result = await connection.stream(sql);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    yield* chunk.getRows();
  }
}

async function* streamRecords(connection: DuckDBConnection, sql: string): AsyncGenerator<DocumentRecord> {
  for await (const [json] of streamRows(connection, sql)) yield JSON.parse(json as string) as DocumentRecord;
}

/** A downloading row whose statements were carried over from an earlier snapshot by a 304. */
const CARRIED = 'd.carried_from IS NOT NULL AND d.downloaded_by = d.url';

/** Every row but the carried ones (handed-over rows included: they follow their owner when published). */
export function uncarriedRecords(
  connection: DuckDBConnection,
  folder: string,
): AsyncGenerator<DocumentRecord> {
  return streamRecords(connection, recordsSql(folder, `NOT (${CARRIED})`));
}

/** The snapshots the carried rows of `folder` name. */
export async function carriedSources(connection: DuckDBConnection, folder: string): Promise<string[]> {
  const rows = await connection.runAndReadAll(
    `SELECT DISTINCT carried_from FROM ${table(folder, 'documents')} AS d WHERE ${CARRIED} ORDER BY 1`,
  );
  return rows.getRows().map(([name]) => name as string);
}

/**
 * The rows of `folder` carried over from the snapshot `source` (a folder beside it), each with its
 * statements as `source` published them: the rows and `source`'s quads of their graphs, both read in the same
 * order of final URL, are merged, so each file is read once and one document's statements are held
 * at a time. The two streams need a connection each.
 */
export async function* carriedDocuments(
  connections: readonly [DuckDBConnection, DuckDBConnection],
  folder: string,
  source: string,
): AsyncGenerator<CrawledDocument> {
  const name = sqlString(source);
  const sourceFolder = join(dirname(folder), source);
  const records = streamRecords(
    connections[0],
    `${recordsSql(folder, `${CARRIED} AND d.carried_from = ${name}`)}
    ORDER BY d.final_url`,
  );
  const quads = streamRows(
    connections[1],
    `SELECT ${QUAD_COLUMNS} FROM ${await publishedQuadsSql(sourceFolder)}
      WHERE graph IN (SELECT final_url FROM ${table(folder, 'documents')} AS d WHERE ${CARRIED}
        AND d.carried_from = ${name})
      ORDER BY graph`,
  );
  let next = await quads.next();
  for await (const record of records) {
    const statements: Statement[] = [];
    while (!next.done && graphOf(next.value) === record.finalUrl) {
      statements.push(toStatement(next.value));
      next = await quads.next();
    }
    yield { record: { ...record, statements: statements.length }, statements };
  }
  if (!next.done) {
    throw new ObservatoryError(
      'internal',
      `statements of ${graphOf(next.value)} in ${sourceFolder} matched no carried row`,
    );
  }
}
