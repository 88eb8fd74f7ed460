/**
 * The published Parquet schema, table by table, in the order the columns are written. Publishing
 * casts every column to these types and `verify` checks files against them; docs/data-dictionary.md
 * explains each column. Bump SNAPSHOT_SCHEMA_VERSION on any change, and say since which version a
 * column exists in the dictionary. Every writer of a table makes its SQL from these lists by column
 * name (documents' columns, with how each comes from the crawl journal, are document-columns.ts's).
 */
import { DOCUMENT_COLUMNS } from './document-columns.ts';
import { sqlString } from './duckdb-session.ts';

export const SNAPSHOT_SCHEMA_VERSION = 6;

/** Schema versions this code reads (verify, change detection, statistics, histories). */
export type SchemaVersion = 1 | 2 | 3 | 4 | 5 | 6;

export type TableName = 'documents' | 'quads' | 'redirects' | 'changes' | 'schedule' | 'delta';

/** The schema version each table was first published in; a folder of an older one has no such file. */
const TABLE_SINCE: Readonly<Record<TableName, SchemaVersion>> = {
  documents: 1,
  quads: 1,
  redirects: 1,
  changes: 1,
  schedule: 1,
  delta: 5,
};

/** Whether a folder of schema `version` publishes `table`. */
export function hasTable(table: TableName, version: SchemaVersion): boolean {
  return version >= TABLE_SINCE[table];
}

export interface ColumnSpec {
  readonly name: string;
  /** The DuckDB type as DESCRIBE prints it for the Parquet file. */
  readonly type: string;
}

const col = (name: string, type: string): ColumnSpec => Object.freeze({ name, type });

/** DuckDB's name for TIMESTAMPTZ (what DESCRIBE prints): an instant, written to Parquet as UTC. */
export const TIMESTAMPTZ = 'TIMESTAMP WITH TIME ZONE';

/** What every table of schema 2 starts with: the folder name, its typed start, and its kind. */
const SNAPSHOT_COLUMNS = [
  col('snapshot', 'VARCHAR'),
  col('snapshot_start', TIMESTAMPTZ),
  col('kind', 'VARCHAR'),
];

/** A statement as quads and delta hold it (docs/data-dictionary.md, quads.parquet). */
const STATEMENT_COLUMNS = [
  col('subject', 'VARCHAR'),
  col('predicate', 'VARCHAR'),
  col('object', 'VARCHAR'),
  col('object_kind', 'VARCHAR'),
  col('datatype', 'VARCHAR'),
  col('lang', 'VARCHAR'),
  col('direction', 'VARCHAR'),
  col('source_graph', 'VARCHAR'),
];

export const TABLES: Readonly<Record<TableName, readonly ColumnSpec[]>> = Object.freeze({
  documents: [...SNAPSHOT_COLUMNS, ...DOCUMENT_COLUMNS.map((c) => col(c.name, c.type))],
  quads: [...SNAPSHOT_COLUMNS, col('graph', 'VARCHAR'), ...STATEMENT_COLUMNS],
  redirects: [
    ...SNAPSHOT_COLUMNS,
    col('url', 'VARCHAR'),
    col('hop', 'INTEGER'),
    col('from_url', 'VARCHAR'),
    col('to_url', 'VARCHAR'),
    col('status', 'INTEGER'),
    col('at', TIMESTAMPTZ),
  ],
  changes: [
    ...SNAPSHOT_COLUMNS,
    col('url', 'VARCHAR'),
    col('previous_snapshot', 'VARCHAR'),
    col('previous_fetched_at', TIMESTAMPTZ),
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
    ...SNAPSHOT_COLUMNS,
    col('url', 'VARCHAR'),
    col('level', 'INTEGER'),
    col('interval_ms', 'BIGINT'),
    col('next_due', TIMESTAMPTZ),
    col('strategy', 'VARCHAR'),
    col('state', 'VARCHAR'),
  ],
  delta: [
    ...SNAPSHOT_COLUMNS,
    col('url', 'VARCHAR'),
    col('graph', 'VARCHAR'),
    col('previous_snapshot', 'VARCHAR'),
    col('op', 'VARCHAR'),
    ...STATEMENT_COLUMNS,
  ],
});

/**
 * Columns schema 3 added: the WARC pointer of the document's response (docs/archive.md) and what a
 * conditional re-visit did, with their types.
 */
const V3_COLUMNS: Readonly<Record<string, string>> = {
  warc_filename: 'VARCHAR',
  warc_offset: 'BIGINT',
  warc_length: 'BIGINT',
  validation: 'VARCHAR',
  carried_from: 'VARCHAR',
};

/**
 * Columns schema 4 added to quads (docs/rdf.md): the publisher's own graph name and the RDF 1.2
 * terms, with their types.
 */
const V4_QUAD_COLUMNS: Readonly<Record<string, string>> = {
  direction: 'VARCHAR',
  source_graph: 'VARCHAR',
};

/** Schema 3, as published before schema 4's quads columns (its changes table had the 304 error, see readTableSql). */
const TABLES_V3: Readonly<Record<TableName, readonly ColumnSpec[]>> = Object.freeze({
  ...TABLES,
  quads: TABLES.quads.filter((c) => !(c.name in V4_QUAD_COLUMNS)),
});

/** Schema 2, as published before the archive and conditional re-visits: schema 3 without their columns. */
const TABLES_V2: Readonly<Record<TableName, readonly ColumnSpec[]>> = Object.freeze({
  ...TABLES_V3,
  documents: TABLES_V3.documents.filter((c) => !(c.name in V3_COLUMNS)),
});

/**
 * Schema 1 as published until the schema bump, for reading older folders: no snapshot_start (and
 * kind only in documents), redirects' hop columns named `from`/`to`, TIMESTAMP without zone (UTC),
 * no downloaded_by or parsed_statements, and `statements` as parsed (duplicates included).
 */
const TABLES_V1: Readonly<Record<TableName, readonly ColumnSpec[]>> = Object.freeze({
  documents: TABLES_V2.documents
    .filter((c) => !['snapshot_start', 'downloaded_by', 'parsed_statements'].includes(c.name))
    .map((c) => (c.type === TIMESTAMPTZ ? col(c.name, 'TIMESTAMP') : c)),
  quads: TABLES_V3.quads.filter((c) => c.name !== 'snapshot_start' && c.name !== 'kind'),
  redirects: TABLES.redirects
    .filter((c) => c.name !== 'snapshot_start' && c.name !== 'kind')
    .map((c) =>
      c.name === 'from_url'
        ? col('from', 'VARCHAR')
        : c.name === 'to_url'
          ? col('to', 'VARCHAR')
          : c.type === TIMESTAMPTZ
            ? col(c.name, 'TIMESTAMP')
            : c,
    ),
  changes: v1Timestamps(TABLES.changes),
  schedule: v1Timestamps(TABLES.schedule),
  delta: TABLES.delta,
});

function v1Timestamps(columns: readonly ColumnSpec[]): ColumnSpec[] {
  return columns
    .filter((c) => c.name !== 'snapshot_start' && c.name !== 'kind')
    .map((c) => (c.type === TIMESTAMPTZ ? col(c.name, 'TIMESTAMP') : c));
}

/** The columns of a table in a given schema version (what `verify` checks a folder against). */
export function tableColumns(table: TableName, version: SchemaVersion): readonly ColumnSpec[] {
  if (version >= 4) return TABLES[table];
  return version === 3 ? TABLES_V3[table] : version === 2 ? TABLES_V2[table] : TABLES_V1[table];
}

/** True for a schema version this code can read. */
export function isSchemaVersion(value: unknown): value is SchemaVersion {
  return value === 1 || value === 2 || value === 3 || value === 4 || value === 5 || value === 6;
}

/**
 * The status an observation's availability is compared by (docs/data-dictionary.md,
 * Definitions): a 304 that carried the previous statements over (its error is that observation's:
 * null or parse) counts as the 200 it confirms, so 200 -> 304 -> 200 is no availability change.
 */
export function availabilityStatusSql(status: string, error: string): string {
  return `CASE WHEN ${status} = 304 AND (${error} IS NULL OR ${error} = 'parse') THEN 200 ELSE ${status} END`;
}

/**
 * Whether an observation's availability differs from the previous one's (null without one): what
 * `changes.availability_changed` holds since schema 4, and what readers derive for older folders,
 * whose files counted every 200 <-> 304 as a change (docs/errata.md).
 */
export function availabilityChangedSql(
  previousSnapshot: string,
  current: { readonly status: string; readonly error: string },
  previous: { readonly status: string; readonly error: string },
): string {
  return `CASE WHEN ${previousSnapshot} IS NULL THEN NULL
    ELSE ${availabilityStatusSql(current.status, current.error)} IS DISTINCT FROM ${availabilityStatusSql(previous.status, previous.error)}
      OR ${current.error} IS DISTINCT FROM ${previous.error} END`;
}

/**
 * SQL that reads one published table of a folder of any readable version in the shape of the
 * current schema: what every reader of older folders goes through, so that none of them needs to
 * know older schemas. Columns a version lacks are null (schema 1-2: the WARC pointer and
 * `validation` / `carried_from`, no archive and no conditional re-visits then; schema 1-3: the
 * quads columns of schema 4) or derived where they can be (schema 1: snapshot_start from the
 * manifest, kind, downloaded_by = url since every schema-1 row downloaded its own response,
 * parsed_statements = schema 1's `statements`, which counted as parsed). `statements` stays schema
 * 1's count (as parsed: at least the distinct count that schema 2 gives). Timestamps become
 * TIMESTAMPTZ read as UTC, whatever the session's time zone. `changes.availability_changed` of
 * schema 1-3 is derived again from the row's statuses and errors (docs/errata.md: those files
 * counted a 304 as an availability change). A table a version lacks (delta before schema 5) is an
 * empty relation of its columns, so that a union over the history covers every folder.
 */
export function readTableSql(
  file: string,
  table: TableName,
  version: SchemaVersion,
  snapshot: { readonly startedAt: string; readonly kind: string },
): string {
  if (!hasTable(table, version))
    return `SELECT ${TABLES[table].map((c) => `NULL::${c.type} AS "${c.name}"`).join(', ')} WHERE false`;
  const source = `read_parquet(${sqlString(file)})`;
  // schema 5 added a table and changed no column of the others; schema 6 changed the archive's index files only
  if (version >= 4) return `SELECT * FROM ${source}`;
  const absentSince = (columns: Readonly<Record<string, string>>) =>
    Object.entries(columns).map(([name, type]) => [name, `NULL::${type} AS ${name}`]);
  const derived: Record<string, string> = Object.fromEntries([
    ...absentSince(V4_QUAD_COLUMNS),
    ...(version < 3 ? absentSince(V3_COLUMNS) : []),
    [
      'availability_changed',
      `${availabilityChangedSql(
        'previous_snapshot',
        { status: 'status', error: 'error' },
        { status: 'previous_status', error: 'previous_error' },
      )} AS availability_changed`,
    ],
  ]);
  if (version === 1) {
    Object.assign(derived, {
      snapshot_start: `${sqlString(snapshot.startedAt)}::TIMESTAMPTZ AS snapshot_start`,
      kind: `${sqlString(snapshot.kind)} AS kind`,
      downloaded_by: 'url AS downloaded_by',
      parsed_statements: 'statements AS parsed_statements',
      from_url: '"from" AS from_url',
      to_url: '"to" AS to_url',
    });
  }
  const columns = TABLES[table].map((c) =>
    version === 1 && c.type === TIMESTAMPTZ && c.name !== 'snapshot_start'
      ? `timezone('UTC', "${c.name}") AS "${c.name}"`
      : (derived[c.name] ?? `"${c.name}"`),
  );
  return `SELECT ${columns.join(', ')} FROM ${source}`;
}

export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

/**
 * A table's columns after the snapshot's own: what a row of the crawl, of change detection or of the
 * schedule holds, which the export completes with the snapshot's columns.
 */
export function rowColumns(table: TableName): readonly ColumnSpec[] {
  return TABLES[table].slice(SNAPSHOT_COLUMNS.length);
}

/** The file a table is published in, inside the snapshot folder. */
export function parquetFileName(table: TableName): string {
  return `${table}.parquet`;
}

export const NQUADS_FILE = 'data.nq.gz';
export const MANIFEST_FILE = 'manifest.json';
export const CHECKSUMS_FILE = 'SHA256SUMS';
