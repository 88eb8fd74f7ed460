import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from './duckdb-session.ts';
import { SNAPSHOT_SCHEMA_VERSION, TABLES, type TableName } from './schema.ts';

/** The published rows of each table, typed and ordered for pruning (see DESIGN.md, Parquet). */
function tableQuery(table: TableName, snapshot: string, kind: string): string {
  const snap = sqlString(snapshot);
  switch (table) {
    case 'documents':
      return `SELECT ${snap} AS snapshot, ${sqlString(kind)} AS kind, segment, round, url, final_url, pld,
          epoch_ms(fetched_at_ms) AS fetched_at, duration_ms, status, error, error_message, content_type,
          format, bytes, statements, content_sha256, graph_hash, etag, last_modified,
          CAST(headers_json::JSON AS MAP(VARCHAR, VARCHAR)) AS headers, redirects
        FROM stage_documents ORDER BY url`;
    case 'quads':
      // a graph is a set: a triple repeated in a document, or a document reached by two URLs, is one row
      return `SELECT ${snap} AS snapshot, * FROM (SELECT DISTINCT graph, subject, predicate, object,
          object_kind, datatype, lang FROM stage_quads)
        ORDER BY graph, subject, predicate, object, object_kind, datatype NULLS FIRST, lang NULLS FIRST`;
    case 'redirects':
      return `SELECT ${snap} AS snapshot, url, hop, from_url AS "from", to_url AS "to", status,
          epoch_ms(at_ms) AS at
        FROM stage_redirects ORDER BY from_url, url, hop`;
    case 'changes':
      return `SELECT ${snap} AS snapshot, url, previous_snapshot, previous_fetched_at, changed, added, removed,
          graph_hash, previous_graph_hash, availability_changed, status, previous_status, error, previous_error
        FROM stage_changes ORDER BY url`;
    case 'schedule':
      return `SELECT ${snap} AS snapshot, url, level, interval_ms, epoch_ms(next_due_ms) AS next_due, strategy,
          state
        FROM stage_schedule ORDER BY url`;
  }
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
  snapshot: string,
  kind: string,
): Promise<number> {
  const columns = TABLES[table].map((c) => `CAST("${c.name}" AS ${c.type}) AS "${c.name}"`).join(', ');
  const metadata = `{observatory_schema_version: '${SNAPSHOT_SCHEMA_VERSION}', observatory_table: '${table}',
    observatory_snapshot: ${sqlString(snapshot)}}`;
  await connection.run(
    `COPY (SELECT ${columns} FROM (${tableQuery(table, snapshot, kind)})) TO ${sqlString(file)}
      (FORMAT parquet, COMPRESSION zstd, KV_METADATA ${metadata})`,
  );
  const rows = await connection.runAndReadAll(
    `SELECT num_rows FROM parquet_file_metadata(${sqlString(file)})`,
  );
  return Number(rows.getRows()[0][0]);
}
