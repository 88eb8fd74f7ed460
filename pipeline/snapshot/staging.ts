import { createHash } from 'node:crypto';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { CrawledDocument, ScheduleEntry } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';

const FINGERPRINT_MODULUS = 1n << 256n;

/** Staging tables: the crawl as handed over, before sorting and typing for publication. */
const STAGING_DDL = `
CREATE TABLE stage_documents (
  url VARCHAR, final_url VARCHAR, pld VARCHAR, segment VARCHAR, round INTEGER, fetched_at_ms BIGINT,
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
    appendDocument(docs, doc);
    appendStatements(quads, doc);
    appendRedirects(hops, doc);
    sum = (sum + sha256(JSON.stringify(doc))) % FINGERPRINT_MODULUS;
    count++;
    statements += doc.statements.length;
  }
  for (const appender of [docs, quads, hops]) appender.closeSync();

  const duplicate = await connection.runAndReadAll(
    'SELECT url FROM stage_documents GROUP BY url HAVING count(*) > 1 ORDER BY url LIMIT 1',
  );
  if (duplicate.currentRowCount > 0) {
    throw new ObservatoryError(
      'invalid_input',
      `the crawl lists ${duplicate.getRows()[0][0]} more than once; a snapshot has one row per URL attempted`,
    );
  }
  return { documents: count, statements, fingerprint: sum.toString(16).padStart(64, '0') };
}
