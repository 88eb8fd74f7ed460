/**
 * documents.parquet, one row per column (after the snapshot's own): its published name and type and
 * how it travels between the crawl journal's document record (DocumentRecord, pipeline/core/types.ts)
 * and the file. schema.ts declares the table from this list; staging (the journal's read type, the
 * staged table, the shared response columns), the Parquet export and reparse (a published row back
 * to a record) are made from it by name. Adding a column is one row here (and the record field the
 * crawler fills); docs/data-dictionary.md describes it, which test/snapshot/table-columns.test.ts
 * checks.
 */
import type { DocumentRecord } from '../core/index.ts';

/** A documents column; the optional parts are needed only where the defaults do not hold. */
export interface DocumentColumn {
  readonly name: string;
  /** The published DuckDB type, as DESCRIBE prints it. */
  readonly type: string;
  /** The record's field the column comes from; absent: derived when published (`publish`). */
  readonly field?: keyof DocumentRecord;
  /** How DuckDB's JSON reader reads the field: the column's type, or DOUBLE for a BIGINT (JS numbers). */
  readonly read?: string;
  /** The staged value from the record `r` (default: the field, rounded for a BIGINT). */
  readonly stage?: string;
  /** The staged column's type (default: the published type). */
  readonly staged?: string;
  /** The published value from staged row `d` (default: the staged column). */
  readonly publish?: string;
  /** The record field's value from published row `d` and its redirect hops `r.hops` (default: the column). */
  readonly record?: string;
  /**
   * A column of the response: a row that reached a final URL another row downloaded takes it from
   * that row (staging's shareDownloads).
   */
  readonly response?: true;
}

/** A journal number (JSON reads it as DOUBLE when it is large) as BIGINT. */
export const int64 = (value: string) => `round(${value})::BIGINT`;

/** The redirect hops as the crawler writes them (core RedirectHop). */
const HOPS = 'STRUCT("from" VARCHAR, "to" VARCHAR, status INTEGER, "at" DOUBLE)[]';

export const DOCUMENT_COLUMNS = [
  { name: 'segment', type: 'VARCHAR', field: 'segment' },
  { name: 'round', type: 'INTEGER', field: 'round' },
  { name: 'url', type: 'VARCHAR', field: 'url' },
  { name: 'final_url', type: 'VARCHAR', field: 'finalUrl', response: true },
  {
    name: 'downloaded_by',
    type: 'VARCHAR',
    field: 'downloadedBy',
    // the record says it only where another fetch downloaded the final URL
    stage: 'coalesce(r."downloadedBy", r.url)',
    record: 'CASE WHEN d.downloaded_by <> d.url THEN d.downloaded_by END',
  },
  { name: 'pld', type: 'VARCHAR', field: 'pld' },
  {
    name: 'fetched_at',
    type: 'TIMESTAMP WITH TIME ZONE',
    field: 'fetchedAt',
    read: 'DOUBLE',
    staged: 'BIGINT',
    stage: int64('r."fetchedAt"'),
    publish: 'epoch_ms(d.fetched_at)',
    record: 'epoch_ms(d.fetched_at)',
  },
  { name: 'duration_ms', type: 'BIGINT', field: 'durationMs' },
  { name: 'status', type: 'INTEGER', field: 'status', response: true },
  { name: 'error', type: 'VARCHAR', field: 'error', response: true },
  { name: 'error_message', type: 'VARCHAR', field: 'errorMessage', response: true },
  { name: 'content_type', type: 'VARCHAR', field: 'contentType', response: true },
  { name: 'format', type: 'VARCHAR', field: 'format', response: true },
  { name: 'bytes', type: 'BIGINT', field: 'bytes', response: true },
  {
    // distinct, as in quads.parquet (the graph's rows, counted by countGraphStatements)
    name: 'statements',
    type: 'BIGINT',
    publish: 'coalesce(g.statements, 0)',
  },
  {
    // the record's count is as parsed
    name: 'parsed_statements',
    type: 'BIGINT',
    field: 'statements',
    response: true,
  },
  { name: 'content_sha256', type: 'VARCHAR', field: 'contentSha256', response: true },
  { name: 'graph_hash', type: 'VARCHAR', field: 'graphHash', response: true },
  { name: 'etag', type: 'VARCHAR', field: 'etag', response: true },
  { name: 'last_modified', type: 'VARCHAR', field: 'lastModified', response: true },
  {
    name: 'headers',
    type: 'MAP(VARCHAR, VARCHAR)',
    field: 'headers',
    read: 'JSON',
    // as text until published: the map is built once, in the export
    staged: 'VARCHAR',
    stage: 'r.headers::VARCHAR',
    publish: 'CAST(d.headers::JSON AS MAP(VARCHAR, VARCHAR))',
    response: true,
  },
  {
    // the count; the hops themselves are redirects.parquet's
    name: 'redirects',
    type: 'INTEGER',
    field: 'redirects',
    read: HOPS,
    stage: 'len(r.redirects)',
    record: 'coalesce(r.hops, [])',
  },
  { name: 'warc_filename', type: 'VARCHAR', field: 'warcFilename', response: true },
  { name: 'warc_offset', type: 'BIGINT', field: 'warcOffset', response: true },
  { name: 'warc_length', type: 'BIGINT', field: 'warcLength', response: true },
  { name: 'validation', type: 'VARCHAR', field: 'validation', response: true },
  { name: 'carried_from', type: 'VARCHAR', field: 'carriedFrom', response: true },
] as const satisfies readonly DocumentColumn[];

/** A type that compiles only when it is never. */
type None<T extends never> = T;

/**
 * The record's fields no column takes: none, or tsc fails here, since a field the crawler writes
 * that no column publishes would be lost on the way to documents.parquet.
 */
export type UnpublishedFields = None<
  Exclude<
    keyof DocumentRecord,
    Extract<(typeof DOCUMENT_COLUMNS)[number], { readonly field: string }>['field']
  >
>;

const COLUMNS: readonly DocumentColumn[] = DOCUMENT_COLUMNS;

/** The columns read from the record, each with its field. */
export const RECORD_COLUMNS = COLUMNS.filter(
  (c): c is DocumentColumn & { readonly field: keyof DocumentRecord } => c.field !== undefined,
);

const quoted = (field: string) => `"${field}"`;

/** How DuckDB's JSON reader reads a column's field. */
function readType(c: DocumentColumn): string {
  return c.read ?? (c.type === 'BIGINT' ? 'DOUBLE' : c.type);
}

/** The document record of a journal line as DuckDB reads it (field names as the crawler writes them). */
export const RECORD_TYPE = `STRUCT(${RECORD_COLUMNS.map((c) => `${quoted(c.field)} ${readType(c)}`).join(', ')})`;

/** stage_documents' columns: the record's, by the published names, with their staged type and value. */
export const STAGE_DOCUMENTS = RECORD_COLUMNS.map((c) => ({
  name: c.name,
  type: c.staged ?? c.type,
  from: c.stage ?? (readType(c) === 'DOUBLE' ? int64(`r.${quoted(c.field)}`) : `r.${quoted(c.field)}`),
}));

/** The published columns of documents.parquet from stage_documents `d` (and graph_statements `g`). */
export const PUBLISHED_DOCUMENTS = COLUMNS.map((c) => `${c.publish ?? `d.${c.name}`} AS "${c.name}"`).join(
  ', ',
);

/** The record's fields from a published documents.parquet row `d` (and its redirect hops `r.hops`). */
export const RECORD_FIELDS = RECORD_COLUMNS.map(
  (c) => `${quoted(c.field)} := ${c.record ?? `d.${c.name}`}`,
).join(', ');

/** The columns a row that did not download its final URL takes from the row that did. */
export const RESPONSE_COLUMNS = COLUMNS.filter((c) => c.response).map((c) => c.name);
