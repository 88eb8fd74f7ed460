import type { DuckDBConnection } from '@duckdb/node-api';
import { PUBLISHED_DOCUMENTS } from './document-columns.ts';
import { sqlString } from './duckdb-session.ts';
import { SNAPSHOT_SCHEMA_VERSION, TABLES, type TableName } from './schema.ts';
import { publishedFromStage } from './staging.ts';

/** The snapshot a table is exported for: its folder name, kind and start (ISO 8601 UTC). */
export interface ExportedSnapshot {
  readonly name: string;
  readonly kind: string;
  readonly startedAt: string;
}

/**
 * The published rows of each table without the snapshot's own columns, ordered for pruning (see
 * DESIGN.md, Parquet); exportTable takes the columns from them by name. documents needs
 * graph_statements (countGraphStatements), so quads is exported first.
 */
function tableQuery(table: TableName): string {
  switch (table) {
    case 'documents':
      return `SELECT ${PUBLISHED_DOCUMENTS}
        FROM stage_documents d LEFT JOIN graph_statements g ON g.graph = d.final_url ORDER BY url`;
    case 'quads':
      // staging merged the triples repeated in a document (see stageJournal)
      return `${publishedFromStage('quads')} ORDER BY graph, subject, predicate, object, object_kind,
          datatype NULLS FIRST, lang NULLS FIRST, direction NULLS FIRST, source_graph NULLS FIRST`;
    case 'redirects':
      return `${publishedFromStage('redirects')} ORDER BY from_url, url, hop`;
    case 'changes':
      return 'SELECT * FROM stage_changes ORDER BY url';
    case 'schedule':
      return `${publishedFromStage('schedule')} ORDER BY url`;
    case 'delta':
      return `SELECT * FROM stage_delta ORDER BY url, op, subject, predicate, object, object_kind,
          datatype NULLS FIRST, lang NULLS FIRST, direction NULLS FIRST, source_graph NULLS FIRST`;
  }
}

/** Counts the rows of each graph of the published quads.parquet into graph_statements. */
export async function countGraphStatements(connection: DuckDBConnection, quadsFile: string): Promise<void> {
  await connection.run(`CREATE TABLE graph_statements AS
    SELECT graph, count(*) AS statements FROM read_parquet(${sqlString(quadsFile)}) GROUP BY graph`);
}

/**
 * Writes one table as zstd Parquet with the schema version in its key-value metadata, casting every
 * column to the published type so that an empty table still has the documented schema.
 * Returns the number of rows written.
 */
export async function exportTable(
  connection: DuckDBConnection,
  table: TableName,
  file: string,
  snapshot: ExportedSnapshot,
): Promise<number> {
  const columns = TABLES[table].map((c) => `CAST("${c.name}" AS ${c.type}) AS "${c.name}"`).join(', ');
  // the snapshot's columns are the same on every row: added after the sort, they are not carried
  // through it (quads.parquet of 4.5 million statements: 8.6 s of CPU instead of 12-13, same bytes)
  const head = `${sqlString(snapshot.name)} AS snapshot, ${sqlString(snapshot.startedAt)}::TIMESTAMPTZ AS snapshot_start,
    ${sqlString(snapshot.kind)} AS kind`;
  const metadata = `{observatory_schema_version: '${SNAPSHOT_SCHEMA_VERSION}', observatory_table: '${table}',
    observatory_snapshot: ${sqlString(snapshot.name)}}`;
  await connection.run(
    `COPY (SELECT ${columns} FROM (SELECT ${head}, * FROM (${tableQuery(table)}))) TO ${sqlString(file)}
      (FORMAT parquet, COMPRESSION zstd, KV_METADATA ${metadata})`,
  );
  const rows = await connection.runAndReadAll(
    `SELECT num_rows FROM parquet_file_metadata(${sqlString(file)})`,
  );
  return Number(rows.getRows()[0][0]);
}
