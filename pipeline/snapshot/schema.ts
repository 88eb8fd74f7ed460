/**
 * The published Parquet schema, table by table, in the order the columns are written. Publishing
 * casts every column to these types and `verify` checks files against them; docs/data-dictionary.md
 * explains each column. Bump SNAPSHOT_SCHEMA_VERSION on any change, and say since which version a
 * column exists in the dictionary.
 */
export const SNAPSHOT_SCHEMA_VERSION = 1;

export type TableName = 'documents' | 'quads' | 'redirects' | 'changes' | 'schedule';

export interface ColumnSpec {
  readonly name: string;
  /** The DuckDB type as DESCRIBE prints it for the Parquet file. */
  readonly type: string;
}

const col = (name: string, type: string): ColumnSpec => Object.freeze({ name, type });

export const TABLES: Readonly<Record<TableName, readonly ColumnSpec[]>> = Object.freeze({
  documents: [
    col('snapshot', 'VARCHAR'),
    col('kind', 'VARCHAR'),
    col('segment', 'VARCHAR'),
    col('round', 'INTEGER'),
    col('url', 'VARCHAR'),
    col('final_url', 'VARCHAR'),
    col('pld', 'VARCHAR'),
    col('fetched_at', 'TIMESTAMP'),
    col('duration_ms', 'BIGINT'),
    col('status', 'INTEGER'),
    col('error', 'VARCHAR'),
    col('error_message', 'VARCHAR'),
    col('content_type', 'VARCHAR'),
    col('format', 'VARCHAR'),
    col('bytes', 'BIGINT'),
    col('statements', 'BIGINT'),
    col('content_sha256', 'VARCHAR'),
    col('graph_hash', 'VARCHAR'),
    col('etag', 'VARCHAR'),
    col('last_modified', 'VARCHAR'),
    col('headers', 'MAP(VARCHAR, VARCHAR)'),
    col('redirects', 'INTEGER'),
  ],
  quads: [
    col('snapshot', 'VARCHAR'),
    col('graph', 'VARCHAR'),
    col('subject', 'VARCHAR'),
    col('predicate', 'VARCHAR'),
    col('object', 'VARCHAR'),
    col('object_kind', 'VARCHAR'),
    col('datatype', 'VARCHAR'),
    col('lang', 'VARCHAR'),
  ],
  redirects: [
    col('snapshot', 'VARCHAR'),
    col('url', 'VARCHAR'),
    col('hop', 'INTEGER'),
    col('from', 'VARCHAR'),
    col('to', 'VARCHAR'),
    col('status', 'INTEGER'),
    col('at', 'TIMESTAMP'),
  ],
  changes: [
    col('snapshot', 'VARCHAR'),
    col('url', 'VARCHAR'),
    col('previous_snapshot', 'VARCHAR'),
    col('previous_fetched_at', 'TIMESTAMP'),
    col('changed', 'BOOLEAN'),
    col('added', 'BIGINT'),
    col('removed', 'BIGINT'),
    col('graph_hash', 'VARCHAR'),
    col('previous_graph_hash', 'VARCHAR'),
    col('availability_changed', 'BOOLEAN'),
    col('status', 'INTEGER'),
    col('previous_status', 'INTEGER'),
    col('error', 'VARCHAR'),
    col('previous_error', 'VARCHAR'),
  ],
  schedule: [
    col('snapshot', 'VARCHAR'),
    col('url', 'VARCHAR'),
    col('level', 'INTEGER'),
    col('interval_ms', 'BIGINT'),
    col('next_due', 'TIMESTAMP'),
    col('strategy', 'VARCHAR'),
    col('state', 'VARCHAR'),
  ],
});

export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

/** The file a table is published in, inside the snapshot folder. */
export function parquetFileName(table: TableName): string {
  return `${table}.parquet`;
}

export const NQUADS_FILE = 'data.nq.gz';
export const MANIFEST_FILE = 'manifest.json';
export const CHECKSUMS_FILE = 'SHA256SUMS';
