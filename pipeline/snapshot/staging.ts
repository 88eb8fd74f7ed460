import { createHash } from 'node:crypto';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { Logger, ScheduleEntry } from '../core/index.ts';
import { ignoreFailure, ObservatoryError, withCleanup } from '../core/index.ts';
import {
  CODE_KIND,
  type JournalScan,
  PACKED_STATEMENT_FIELDS,
  readJournalFile,
  scanJournal,
  writeJournalDocuments,
} from '../crawl/index.ts';
import { int64, RECORD_TYPE, RESPONSE_COLUMNS, STAGE_DOCUMENTS } from './document-columns.ts';
import { memoryBytes, queryRows, sqlString } from './duckdb-session.ts';
import { rowColumns, TIMESTAMPTZ } from './schema.ts';

const FINGERPRINT_MODULUS = 1n << 256n;

function stageDocumentsDdl(): string {
  return `CREATE TABLE stage_documents (${STAGE_DOCUMENTS.map((c) => `"${c.name}" ${c.type}`).join(', ')});`;
}

/**
 * A staging table of `table`'s row columns (schema.ts), by their published names and types, but
 * for instants: those are staged as epoch milliseconds (BIGINT), as the crawl gives them, and the
 * export makes them timestamps (publishedFromStage).
 */
function stagedTableDdl(table: 'quads' | 'redirects' | 'schedule'): string {
  const columns = rowColumns(table).map((c) => `"${c.name}" ${c.type === TIMESTAMPTZ ? 'BIGINT' : c.type}`);
  return `CREATE TABLE stage_${table} (${columns.join(', ')});`;
}

/** The staged rows of `table` in its published columns: its instants from epoch milliseconds (see stagedTableDdl). */
export function publishedFromStage(table: 'quads' | 'redirects' | 'schedule'): string {
  const columns = rowColumns(table).map((c) =>
    c.type === TIMESTAMPTZ ? `epoch_ms("${c.name}") AS "${c.name}"` : `"${c.name}"`,
  );
  return `SELECT ${columns.join(', ')} FROM stage_${table}`;
}

/** Staging tables: the crawl as handed over, before sorting and typing for publication. */
const STAGING_DDL = [
  stageDocumentsDdl(),
  stagedTableDdl('quads'),
  stagedTableDdl('redirects'),
  stagedTableDdl('schedule'),
].join('\n');

/** What loading a crawl into the staging tables found. */
export interface StagedCrawl {
  readonly documents: number;
  /** Rows left out: their final URL was downloaded by a row the crawl does not have (see shareDownloads). */
  readonly orphaned: number;
  /**
   * SHA-256 (hex) over the whole input, independent of document order: the sum modulo 2^256 of the
   * SHA-256 of every document line of the journal read (see scanJournal), plus the hash of `header`.
   * Rerunning a publish compares it.
   */
  readonly fingerprint: string;
}

/** The journal a publish reads, and the logger its damaged lines are reported to. */
export interface JournalInput {
  readonly file: string;
  readonly logger?: Logger;
}

function sha256(value: string): bigint {
  return BigInt(`0x${createHash('sha256').update(value).digest('hex')}`);
}

/**
 * The stage_quads columns of a packed statement `s` (a VARCHAR list, pipeline/crawl/journal.ts), each
 * named by its column: a field a shorter list lacks (journals written before it existed) is NULL.
 */
const PACKED_COLUMNS = PACKED_STATEMENT_FIELDS.map((name, i) =>
  name === 'object_kind'
    ? `CASE s[${i + 1}] ${Object.entries(CODE_KIND)
        .map(([code, kind]) => `WHEN '${code}' THEN '${kind}'`)
        .join(' ')} END AS object_kind`
    : `s[${i + 1}] AS ${name}`,
).join(', ');

/** Milliseconds and byte counts as the publisher stores them (JS numbers may carry fractions). */

/**
 * Loads the document lines of a journal into the staging tables with DuckDB's JSON reader, in one
 * transaction. Returns false (nothing loaded) when a line is not what the crawler writes: the
 * reader failed on it, or it lacks what every document line has. `trusted` (a journal written from
 * readable documents) makes any failure an error instead.
 */
async function stageJournal(
  connection: DuckDBConnection,
  file: string,
  scan: JournalScan,
  trusted: boolean,
): Promise<boolean> {
  // the journal's longest line: the reader's buffers grow with this, and with them its threads' memory
  const objectSize = Math.max(MIN_OBJECT_SIZE, scan.longestLine + 1);
  const read = (columns: string) =>
    `read_json(${sqlString(file)}, format = 'newline_delimited', maximum_object_size = ${objectSize},
      columns = {${columns}})`;
  const [[threads, sessionLimit]] = await queryRows(
    connection,
    "SELECT current_setting('threads'), current_setting('memory_limit')",
  );
  const limit = stagingMemoryLimit(String(sessionLimit), scan.longestLine);
  await connection.run(`SET memory_limit = '${limit}'`);
  await connection.run(`SET threads = ${readerThreads(Number(threads), objectSize, memoryBytes(limit))}`);
  const loaded = await withCleanup(
    () => loadJournal(connection, file, read, scan, trusted),
    async () => {
      await connection.run(`SET threads = ${threads}`);
      await connection.run(`SET memory_limit = '${sessionLimit}'`);
    },
  );
  if (!loaded) return false;
  // after the commit: rows deleted before it made the commit rewrite every staged row (4.5 s and
  // +300 MiB for 4 million statements, against 0.2 s). Under the session's limit, not staging's:
  // the reader's buffers are gone by now, and the DISTINCT over a real week's split documents (a
  // quarter of its statements) ran out of 256MB (docs/operating.md, "Memory")
  const [[split]] = await queryRows(connection, 'SELECT count(*) FROM split_graphs');
  if (Number(split) > 0) await mergeSplitGraphs(connection);
  await connection.run('DROP TABLE split_graphs');
  return true;
}

/** stageJournal's reads, in one transaction: false (nothing loaded) when a line is damaged. */
async function loadJournal(
  connection: DuckDBConnection,
  file: string,
  read: (columns: string) => string,
  scan: JournalScan,
  trusted: boolean,
): Promise<boolean> {
  await connection.run('BEGIN TRANSACTION');
  try {
    // the statements are read once, below: materialising them here too (to check each line has
    // them) took a third of the reading time and +160 MiB
    await connection.run(`CREATE TABLE journal_documents AS SELECT t, depth, record, "at", parts, "distinct"
      FROM ${read(`t: 'VARCHAR', depth: 'DOUBLE', record: ${sqlString(RECORD_TYPE)}, "at": 'DOUBLE', parts: ${sqlString(PARTS_TYPE)}, "distinct": 'BOOLEAN'`)}
      WHERE t IN ('doc', 'part')`);
    const [[lines, unreadable, repeating]] = await queryRows(
      connection,
      `SELECT count(*) FILTER (t = 'doc'), count(*) FILTER (t = 'doc' AND (depth IS NULL OR record.url IS NULL)),
        count(*) FILTER ("distinct" IS NOT TRUE) FROM journal_documents`,
    );
    if (
      Number(lines) !== scan.docLines ||
      Number(unreadable) > 0 ||
      (scan.partLines > 0 && !(await partsComplete(connection)))
    ) {
      if (trusted) throw new Error(`DuckDB read ${lines} documents of ${scan.docLines} in ${file}`);
      await connection.run('ROLLBACK');
      return false;
    }
    await connection.run(`INSERT INTO stage_documents BY NAME SELECT ${STAGE_DOCUMENTS.map((c) => `${c.from} AS "${c.name}"`).join(', ')}
      FROM (SELECT record AS r FROM journal_documents WHERE t = 'doc')`);
    await connection.run(`INSERT INTO stage_redirects BY NAME SELECT url, hop, hop_.from AS from_url,
        hop_.to AS to_url, hop_.status AS status, ${int64('hop_.at')} AS "at"
      FROM (SELECT record.url AS url, unnest(range(1, len(record.redirects) + 1)) AS hop,
        unnest(record.redirects) AS hop_ FROM journal_documents WHERE t = 'doc')`);
    await connection.run(`CREATE TEMP TABLE split_graphs AS SELECT record."finalUrl" AS graph
      FROM journal_documents WHERE parts IS NOT NULL AND "distinct" IS NOT TRUE`);
    await connection.run('DROP TABLE journal_documents');
    // lines that may repeat statements (written before the journal wrote each once) are merged with
    // list_distinct, whose lists on two threads ran out of the 256MB staging limit
    if (Number(repeating) > 0) await connection.run('SET threads = 1');
    // a graph is a set: a triple repeated in a document is one row. The journal writes each
    // document's statements once and says so ("distinct"); lines written before it did are merged
    // here. Every graph is one document's (shareDownloads refuses a final URL downloaded twice), so
    // merging per line is merging per graph, without a DISTINCT over every quad of the crawl; the
    // graphs of such split documents are merged again across their lines below. A line without
    // statements is damage (an Invalid Input Error, like the reader's own); one that brings
    // statements for a final URL another fetch downloaded stops the read, and is named below. Parts
    // no document line names (a crawl killed while writing them) made partsComplete fail, so every
    // part read here is a document's
    await connection.run(`INSERT INTO stage_quads BY NAME SELECT graph, ${PACKED_COLUMNS}
      FROM (SELECT coalesce(record."finalUrl", graph) AS graph, unnest(CASE
          WHEN statements IS NULL THEN error('a document line without statements')
          WHEN record."downloadedBy" IS NOT NULL AND (len(statements) > 0 OR parts IS NOT NULL)
            THEN error(${sqlString(SHARED_DOWNLOAD)})
          WHEN "distinct" THEN statements
          ELSE list_distinct(statements) END) AS s
        FROM ${read(`t: 'VARCHAR', graph: 'VARCHAR', record: 'STRUCT("finalUrl" VARCHAR, "downloadedBy" VARCHAR)', parts: ${sqlString(PARTS_TYPE)}, "distinct": 'BOOLEAN', statements: 'VARCHAR[][]'`)}
        WHERE t IN ('doc', 'part'))`);
    await connection.run('COMMIT');
    return true;
  } catch (error) {
    // DuckDB has often ended the transaction itself (a full disk does): a failed rollback must not
    // hide what failed
    await ignoreFailure(() => connection.run('ROLLBACK'));
    if ((error as Error).message.includes(SHARED_DOWNLOAD)) await refuseSharedDownload(connection, read);
    if (trusted || !isDamage(error)) throw error;
    return false;
  }
}

/** See stagingMemoryLimit. */
const STAGING_MEMORY_LIMIT = '256MB';
/** The longest line a journal written with split documents has (LINE_CHARS UTF-16 units as UTF-8, and a statement). */
const SPLIT_LINE_BYTES = 4 * 1024 * 1024;

/** What a document line split into part lines says of them (see pipeline/crawl/journal.ts). */
const PARTS_TYPE = 'STRUCT("at" DOUBLE, count DOUBLE)';

/**
 * Whether the part lines read into journal_documents are exactly those its document lines name:
 * as many per document as it says, and none of a document the journal does not have (parts a
 * killed crawl left, which only the line-by-line reader, reading in order, tells from a later write).
 */
async function partsComplete(connection: DuckDBConnection): Promise<boolean> {
  const [[groups, named, split]] = await queryRows(
    connection,
    `SELECT count(*), count(*) FILTER (p.count = d.parts.count),
        (SELECT count(*) FROM journal_documents WHERE parts IS NOT NULL)
      FROM (SELECT "at", count(*) AS count FROM journal_documents WHERE t = 'part' GROUP BY "at") p
      LEFT JOIN (SELECT parts FROM journal_documents WHERE parts IS NOT NULL) d ON d.parts."at" = p."at"`,
  );
  return Number(groups) === Number(split) && Number(named) === Number(split);
}

/**
 * A triple repeated across the lines of a split document is one row: the rows of split documents'
 * graphs made distinct, only theirs (a small share of the crawl's).
 */
async function mergeSplitGraphs(connection: DuckDBConnection): Promise<void> {
  const split = 'SELECT graph FROM split_graphs';
  await connection.run(
    `CREATE TEMP TABLE split_quads AS SELECT DISTINCT * FROM stage_quads WHERE graph IN (${split})`,
  );
  await connection.run(`DELETE FROM stage_quads WHERE graph IN (${split})`);
  await connection.run('INSERT INTO stage_quads BY NAME SELECT * FROM split_quads');
  await connection.run('DROP TABLE split_quads');
}

/** What the statement read raises on a line refuseSharedDownload names. */
const SHARED_DOWNLOAD = 'statements of a final URL another fetch downloaded';

/**
 * Names the first (by URL) line that brings statements although another fetch downloaded its final
 * URL: a second read of the journal, made only when the statement read found such a line.
 */
async function refuseSharedDownload(
  connection: DuckDBConnection,
  read: (columns: string) => string,
): Promise<void> {
  await refuse(
    connection,
    `SELECT record.url FROM ${read(`t: 'VARCHAR', record: 'STRUCT(url VARCHAR, "downloadedBy" VARCHAR)', parts: ${sqlString(PARTS_TYPE)}, statements: 'JSON[]'`)}
      WHERE t = 'doc' AND record."downloadedBy" IS NOT NULL AND (len(statements) > 0 OR parts IS NOT NULL)
      ORDER BY 1 LIMIT 1`,
    (url) => `${url} brings statements although another fetch downloaded its final URL`,
  );
}

/** A failure of DuckDB's JSON reader on a line it cannot take, not one of memory or storage. */
function isDamage(error: unknown): boolean {
  return /^(Invalid Input|Conversion) Error/.test((error as Error).message);
}

/** The least maximum_object_size the journal is read with (its lines are at most about 4 MB). */
const MIN_OBJECT_SIZE = 1024 * 1024;

/**
 * Threads for reading the journal within DuckDB's memory limit. Each reading thread holds its own
 * JSON buffers (a few times `objectSize`) and row groups being built, which count against the
 * limit: measured, two threads over a journal of short lines fail under 96MB and one succeeds,
 * two succeed under 512MB with 12 MB lines, and under 256MB with a real week's 1 MB lines (44,150
 * documents, 4.5 million statements, written once each: no list_distinct; peak RSS 380-450 MiB).
 * Fewer threads read slower but never fail for memory.
 */
function readerThreads(threads: number, objectSize: number, limitBytes: number): number {
  const perThread = 96 * 1024 * 1024 + 8 * objectSize;
  return Math.max(1, Math.min(threads, Math.floor(limitBytes / perThread)));
}

/**
 * DuckDB's memory limit while staging: at most STAGING_MEMORY_LIMIT when the journal's lines are
 * no longer than the journal writes them now, the session's limit otherwise. Staging fills
 * whatever limit it has with the table being loaded (a 200,000-document week filled 384MB) though
 * a smaller one loads it as fast; the JSON reader's buffers, outside the limit, need a larger
 * limit for long lines (journals written before lines were split: 160MB and 192MB failed on 18.5
 * MB lines).
 */
function stagingMemoryLimit(sessionLimit: string, longestLine: number): string {
  // DuckDB shows its limit as `366.2 MiB`
  const session = sessionLimit.replaceAll(' ', '');
  return longestLine <= SPLIT_LINE_BYTES && memoryBytes(session) > memoryBytes(STAGING_MEMORY_LIMIT)
    ? STAGING_MEMORY_LIMIT
    : session;
}

function bigint(appender: DuckDBAppender, value: number): void {
  appender.appendBigInt(BigInt(Math.round(value)));
}

/** How each column of stage_schedule is appended from an entry, by its name. */
const SCHEDULE_VALUES: Readonly<Record<string, (appender: DuckDBAppender, entry: ScheduleEntry) => void>> = {
  url: (a, e) => a.appendVarchar(e.url),
  level: (a, e) => a.appendInteger(e.level),
  interval_ms: (a, e) => bigint(a, e.intervalMs),
  next_due: (a, e) => bigint(a, e.nextDue),
  strategy: (a, e) => a.appendVarchar(e.strategy),
  state: (a, e) => a.appendVarchar(e.state),
};

/** SCHEDULE_VALUES in the order of the table's columns (an appender fills a row by position). */
const SCHEDULE_APPENDS = rowColumns('schedule').map(({ name }) => {
  const append = SCHEDULE_VALUES[name];
  if (append === undefined) throw new Error(`stageSchedule does not produce schedule column ${name}`);
  return append;
});

function appendSchedule(appender: DuckDBAppender, entry: ScheduleEntry): void {
  for (const append of SCHEDULE_APPENDS) append(appender, entry);
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
 * Creates the staging tables and loads the crawl's journal into them. `header` is the rest of the
 * publish input (kind, times, config, a given schedule) that the fingerprint must cover. A journal
 * whose lines DuckDB cannot all read (damaged lines, a torn end) is read line by line in JS once,
 * which skips and reports the damaged lines, and its readable documents are loaded from a clean
 * copy written to `cleanFile`.
 */
export async function stageCrawl(
  connection: DuckDBConnection,
  input: JournalInput,
  header: string,
  cleanFile: string,
  log: Logger,
): Promise<StagedCrawl> {
  await connection.run(STAGING_DDL);
  let scan = await scanJournal(input.file);
  if (!(scan.regular && (await stageJournal(connection, input.file, scan, false)))) {
    log.info({ journal: input.file }, 'DuckDB cannot read every journal line: reading it line by line');
    await writeJournalDocuments(cleanFile, readJournalFile(input.file, { logger: input.logger }));
    scan = await scanJournal(cleanFile);
    await stageJournal(connection, cleanFile, scan, true);
  }
  await refuse(
    connection,
    'SELECT url FROM stage_documents GROUP BY url HAVING count(*) > 1 ORDER BY url LIMIT 1',
    (url) => `the crawl lists ${url} more than once; a snapshot has one row per URL attempted`,
  );
  const orphaned = await shareDownloads(connection);
  const fingerprint = (sha256(header) + scan.lineHashSum) % FINGERPRINT_MODULUS;
  return {
    documents: scan.docLines - orphaned,
    orphaned,
    fingerprint: fingerprint.toString(16).padStart(64, '0'),
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
  await connection.run(`UPDATE stage_documents AS d SET ${RESPONSE_COLUMNS.map((c) => `${c} = o.${c}`).join(', ')}
    FROM stage_documents AS o WHERE d.downloaded_by = o.url AND d.downloaded_by <> d.url`);
  return left.currentRowCount;
}
