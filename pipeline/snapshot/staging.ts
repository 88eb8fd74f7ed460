import { createHash } from 'node:crypto';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { CrawledDocument, ScheduleEntry } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';

const FINGERPRINT_MODULUS = 1n << 256n;

/** Staging tables: the crawl as handed over, before sorting and typing for publication. */
const STAGING_DDL = `
CREATE TABLE stage_documents (
  url VARCHAR, final_url VARCHAR, downloaded_by VARCHAR, pld VARCHAR, segment VARCHAR, round INTEGER, fetched_at_ms BIGINT,
  duration_ms BIGINT, status INTEGER, error VARCHAR, error_message VARCHAR, content_type VARCHAR,
  format VARCHAR, bytes BIGINT, statements BIGINT, content_sha256 VARCHAR, graph_hash VARCHAR,
  etag VARCHAR, last_modified VARCHAR, headers_json VARCHAR, redirects INTEGER);
CREATE TABLE stage_quads (graph VARCHAR, subject VARCHAR, predicate VARCHAR, object VARCHAR,
  object_kind VARCHAR, datatype VARCHAR, lang VARCHAR);
CREATE TABLE stage_redirects (url VARCHAR, hop INTEGER, from_url VARCHAR, to_url VARCHAR, status INTEGER,
  at_ms BIGINT);
CREATE TABLE stage_schedule (url VARCHAR, level INTEGER, interval_ms BIGINT, next_due_ms BIGINT,
  strategy VARCHAR, state VARCHAR);`;

/** What loading a crawl into the staging tables found. */
export interface StagedCrawl {
  readonly documents: number;
  /** Rows left out: their final URL was downloaded by a row the crawl does not have (see shareDownloads). */
  readonly orphaned: number;
  /** Statements as handed over (before duplicates within a graph are merged). */
  readonly statements: number;
  /**
   * SHA-256 (hex) over the whole input, independent of document order: the sum modulo 2^256 of
   * one hash per document, plus the hash of `header`. Rerunning a publish compares it.
   */
  readonly fingerprint: string;
}

function text(appender: DuckDBAppender, value: string | null): void {
  if (value === null) appender.appendNull();
  else appender.appendVarchar(value);
}

function integer(appender: DuckDBAppender, value: number | null): void {
  if (value === null) appender.appendNull();
  else appender.appendInteger(value);
}

function bigint(appender: DuckDBAppender, value: number): void {
  appender.appendBigInt(BigInt(Math.round(value)));
}

function sha256(value: string): bigint {
  return BigInt(`0x${createHash('sha256').update(value).digest('hex')}`);
}

function appendDocument(appender: DuckDBAppender, doc: CrawledDocument): void {
  const r = doc.record;
  text(appender, r.url);
  text(appender, r.finalUrl);
  text(appender, r.downloadedBy ?? r.url);
  text(appender, r.pld);
  text(appender, r.segment);
  integer(appender, r.round);
  bigint(appender, r.fetchedAt);
  bigint(appender, r.durationMs);
  integer(appender, r.status);
  text(appender, r.error);
  text(appender, r.errorMessage);
  text(appender, r.contentType);
  text(appender, r.format);
  bigint(appender, r.bytes);
  bigint(appender, r.statements);
  text(appender, r.contentSha256);
  text(appender, r.graphHash);
  text(appender, r.etag);
  text(appender, r.lastModified);
  text(appender, JSON.stringify(r.headers));
  integer(appender, r.redirects.length);
  appender.endRow();
}

function appendStatements(appender: DuckDBAppender, doc: CrawledDocument): void {
  const graph = doc.record.finalUrl;
  for (const s of doc.statements) {
    appender.appendVarchar(graph);
    appender.appendVarchar(s.subject);
    appender.appendVarchar(s.predicate);
    appender.appendVarchar(s.object);
    appender.appendVarchar(s.objectKind);
    text(appender, s.datatype);
    text(appender, s.lang);
    appender.endRow();
  }
}

function appendRedirects(appender: DuckDBAppender, doc: CrawledDocument): void {
  doc.record.redirects.forEach((hop, i) => {
    appender.appendVarchar(doc.record.url);
    appender.appendInteger(i + 1);
    appender.appendVarchar(hop.from);
    appender.appendVarchar(hop.to);
    appender.appendInteger(hop.status);
    bigint(appender, hop.at);
    appender.endRow();
  });
}

function appendSchedule(appender: DuckDBAppender, entry: ScheduleEntry): void {
  appender.appendVarchar(entry.url);
  appender.appendInteger(entry.level);
  bigint(appender, entry.intervalMs);
  bigint(appender, entry.nextDue);
  appender.appendVarchar(entry.strategy);
  appender.appendVarchar(entry.state);
  appender.endRow();
}

/** Loads the re-visit schedule after this crawl into the staging table of schedule.parquet. */
export async function stageSchedule(
  connection: DuckDBConnection,
  schedule: readonly ScheduleEntry[],
): Promise<void> {
  const plan = await connection.createAppender('stage_schedule');
  for (const entry of schedule) appendSchedule(plan, entry);
  plan.closeSync();
}

/**
 * Creates the staging tables and loads the crawl in one pass over its documents. `header` is the
 * rest of the publish input (kind, times, config, a given schedule) that the fingerprint must cover.
 */
export async function stageCrawl(
  connection: DuckDBConnection,
  documents: AsyncIterable<CrawledDocument>,
  header: string,
): Promise<StagedCrawl> {
  await connection.run(STAGING_DDL);
  const docs = await connection.createAppender('stage_documents');
  const quads = await connection.createAppender('stage_quads');
  const hops = await connection.createAppender('stage_redirects');
  let sum = sha256(header);
  let count = 0;
  let statements = 0;
  for await (const doc of documents) {
    if (doc.record.downloadedBy !== undefined && doc.statements.length > 0) {
      throw new ObservatoryError(
        'invalid_input',
        `${doc.record.url} brings statements although ${doc.record.downloadedBy} downloaded its final URL`,
      );
    }
    appendDocument(docs, doc);
    appendStatements(quads, doc);
    appendRedirects(hops, doc);
    sum = (sum + sha256(JSON.stringify(doc))) % FINGERPRINT_MODULUS;
    count++;
    statements += doc.statements.length;
  }
  for (const appender of [docs, quads, hops]) appender.closeSync();

  await refuse(
    connection,
    'SELECT url FROM stage_documents GROUP BY url HAVING count(*) > 1 ORDER BY url LIMIT 1',
    (url) => `the crawl lists ${url} more than once; a snapshot has one row per URL attempted`,
  );
  const orphaned = await shareDownloads(connection);
  return {
    documents: count - orphaned,
    orphaned,
    statements,
    fingerprint: sum.toString(16).padStart(64, '0'),
  };
}

/** Throws invalid_input with `message(first value)` when `sql` finds a row. */
async function refuse(
  connection: DuckDBConnection,
  sql: string,
  message: (value: unknown) => string,
): Promise<void> {
  const found = await connection.runAndReadAll(sql);
  if (found.currentRowCount > 0) throw new ObservatoryError('invalid_input', message(found.getRows()[0][0]));
}

/**
 * A final URL is downloaded once per crawl (docs/crawling.md): checks that the crawl kept that rule
 * (one downloading row per final URL, and rows that reached it later point at that row) and gives
 * those rows the downloading row's response columns, so that every row describes the document its
 * URL leads to and statements are stored once. A row pointing at a row the crawl does not have (its
 * journal line was damaged and skipped after the crawl ended) has nothing to describe its document
 * and is left out like that row; returns how many were.
 */
async function shareDownloads(connection: DuckDBConnection): Promise<number> {
  const orphans = `SELECT url FROM stage_documents WHERE downloaded_by <> url
    AND downloaded_by NOT IN (SELECT url FROM stage_documents)`;
  await connection.run(`DELETE FROM stage_redirects WHERE url IN (${orphans})`);
  const left = await connection.runAndReadAll(`DELETE FROM stage_documents WHERE url IN (${orphans})
    RETURNING url`);
  await refuse(
    connection,
    `SELECT d.url FROM stage_documents d LEFT JOIN stage_documents o ON o.url = d.downloaded_by
      WHERE d.downloaded_by <> d.url AND o.downloaded_by IS DISTINCT FROM o.url ORDER BY d.url LIMIT 1`,
    (url) => `${url} points at a row that did not download its final URL`,
  );
  await refuse(
    connection,
    `SELECT final_url FROM stage_documents WHERE downloaded_by = url
      GROUP BY final_url HAVING count(*) > 1 ORDER BY final_url LIMIT 1`,
    (url) => `${url} was downloaded by more than one fetch; a crawl downloads a final URL once`,
  );
  await connection.run(`UPDATE stage_documents AS d SET final_url = o.final_url, status = o.status,
      error = o.error, error_message = o.error_message, content_type = o.content_type, format = o.format,
      bytes = o.bytes, statements = o.statements, content_sha256 = o.content_sha256,
      graph_hash = o.graph_hash, etag = o.etag, last_modified = o.last_modified,
      headers_json = o.headers_json
    FROM stage_documents AS o WHERE d.downloaded_by = o.url AND d.downloaded_by <> d.url`);
  return left.currentRowCount;
}
