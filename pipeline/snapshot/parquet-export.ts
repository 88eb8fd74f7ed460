import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from './duckdb-session.ts';
import { SNAPSHOT_SCHEMA_VERSION, TABLES, type TableName } from './schema.ts';

/** The snapshot a table is exported for: its folder name, kind and start (ISO 8601 UTC). */
export interface ExportedSnapshot {
  readonly name: string;
  readonly kind: string;
  readonly startedAt: string;
}

/**
 * The published rows of each table without the snapshot's own columns, ordered for pruning (see
 * DESIGN.md, Parquet). documents needs graph_statements (countGraphStatements), so quads is
 * exported first.
 */
function tableQuery(table: TableName): string {
  switch (table) {
    case 'documents':
      // statements: distinct, as in quads.parquet (the graph's rows); parsed_statements: as parsed
      return `SELECT segment, round, url, final_url, downloaded_by, pld,
          epoch_ms(fetched_at_ms) AS fetched_at, duration_ms, status, error, error_message, content_type,
          format, bytes, coalesce(g.statements, 0) AS statements, d.statements AS parsed_statements,
          content_sha256, graph_hash, etag, last_modified,
          CAST(headers_json::JSON AS MAP(VARCHAR, VARCHAR)) AS headers, redirects, warc_filename, warc_offset,
          warc_length, validation, carried_from
        FROM stage_documents d LEFT JOIN graph_statements g ON g.graph = d.final_url ORDER BY url`;
    case 'quads':
      // staging merged the triples repeated in a document (see stageJournal)
      return `SELECT graph, subject, predicate, object, object_kind, datatype, lang, direction, source_graph
        FROM stage_quads ORDER BY graph, subject, predicate, object, object_kind, datatype NULLS FIRST,
          lang NULLS FIRST, direction NULLS FIRST, source_graph NULLS FIRST`;
    case 'redirects':
      return `SELECT url, hop, from_url, to_url, status, epoch_ms(at_ms) AS at
        FROM stage_redirects ORDER BY from_url, url, hop`;
    case 'changes':
      return `SELECT url, previous_snapshot, previous_fetched_at, changed, added, removed,
          graph_hash, previous_graph_hash, availability_changed, status, previous_status, error, previous_error
        FROM stage_changes ORDER BY url`;
    case 'schedule':
      return `SELECT url, level, interval_ms, epoch_ms(next_due_ms) AS next_due, strategy, state
        FROM stage_schedule ORDER BY url`;
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
