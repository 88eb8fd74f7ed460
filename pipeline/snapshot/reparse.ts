import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readArchivedResponse, warcFilesIn } from '../archive/index.ts';
import type {
  Clock,
  CrawlConfig,
  CrawledDocument,
  DocumentRecord,
  Logger,
  Progress,
  Statement,
} from '../core/index.ts';
import { CRAWL_DEFAULTS, ObservatoryError } from '../core/index.ts';
import { type ContextLoader, readDocument } from '../rdf/index.ts';
import { decodeBody } from '../web/index.ts';
import { archivedContextLoader } from './archived-contexts.ts';
import { statementsByGraph } from './change-detection.ts';
import { openDuckDb, queryRows, sqlString } from './duckdb-session.ts';
import { hashFile } from './durable-fs.ts';
import { readManifest } from './manifest.ts';
import { openPublication, type PublishedSnapshot } from './publish.ts';
import { readSchedule } from './read-schedule.ts';
import { MANIFEST_FILE, parquetFileName } from './schema.ts';
import { CDXJ_FILE } from './warc-output.ts';

export interface ReparseOptions {
  /** A published snapshot folder with its WARC files (schema 3). */
  readonly folder: string;
  /** The snapshots root the rebuilt snapshot is published under; not the folder's own root. */
  readonly root: string;
  readonly clock: Clock;
  readonly log?: Logger;
  /** Told as documents are rebuilt: done of total, and the statements so far. */
  readonly progress?: Progress;
}

/** The errors readDocument gives: a row with one of these (or none) had its body parsed by the crawl. */
const READ_ERRORS: ReadonlySet<string> = new Set(['not_rdf', 'parse', 'too_complex', 'context_limit']);

/**
 * Each documents.parquet row as the crawl journal's document record: the published row's fields,
 * its redirect hops from redirects.parquet, `statements` as parsed (parsed_statements), and
 * `downloadedBy` only where another fetch downloaded the final URL, as the crawler writes it.
 */
function recordsSql(folder: string): string {
  const file = (table: 'documents' | 'redirects') =>
    `read_parquet(${sqlString(join(folder, parquetFileName(table)))})`;
  return `SELECT to_json(struct_pack(url := d.url, "finalUrl" := d.final_url,
      "downloadedBy" := CASE WHEN d.downloaded_by <> d.url THEN d.downloaded_by END, pld := d.pld,
      segment := d.segment, round := d.round, "fetchedAt" := epoch_ms(d.fetched_at),
      "durationMs" := d.duration_ms, status := d.status, error := d.error, "errorMessage" := d.error_message,
      "contentType" := d.content_type, format := d.format, bytes := d.bytes, statements := d.parsed_statements,
      "contentSha256" := d.content_sha256, "graphHash" := d.graph_hash, etag := d.etag,
      "lastModified" := d.last_modified, headers := d.headers, redirects := coalesce(r.hops, []),
      "warcFilename" := d.warc_filename, "warcOffset" := d.warc_offset, "warcLength" := d.warc_length,
      validation := d.validation, "carriedFrom" := d.carried_from))::VARCHAR
    FROM ${file('documents')} AS d LEFT JOIN (SELECT url, list(struct_pack("from" := from_url, "to" := to_url,
        status := status, "at" := epoch_ms("at")) ORDER BY hop) AS hops
      FROM ${file('redirects')} GROUP BY url) AS r USING (url)`;
}

/** The rows of `sql`'s one VARCHAR column, parsed as JSON, read from DuckDB chunk by chunk. */
async function* streamRecords(connection: DuckDBConnection, sql: string): AsyncGenerator<DocumentRecord> {
  const result = await connection.stream(sql);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    for (const [json] of chunk.getRows()) yield JSON.parse(json as string) as DocumentRecord;
  }
}

/**
 * `fn` over `source` with at most `limit` calls pending, yielding results as they finish: the
 * parse workers stay busy while memory holds at most `limit` documents.
 */
async function* readAhead<T, R>(
  source: AsyncIterable<T>,
  limit: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const pending = new Map<number, Promise<[number, R]>>();
  let next = 0;
  const settled = async () => {
    const [key, result] = await Promise.race(pending.values());
    pending.delete(key);
    return result;
  };
  for await (const item of source) {
    const key = next++;
    const call = fn(item).then((result): [number, R] => [key, result]);
    // a failure is seen by the next race; until then it must not count as unhandled
    call.catch(() => {});
    pending.set(key, call);
    if (pending.size >= limit) yield await settled();
  }
  while (pending.size > 0) yield await settled();
}

/** One query at a time on a connection that several documents use concurrently. */
function serialised(connection: DuckDBConnection) {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(run: (c: DuckDBConnection) => Promise<T>): Promise<T> => {
    const turn = last.then(() => run(connection));
    last = turn.catch(() => {});
    return turn;
  };
}

function badInput(message: string): ObservatoryError {
  return new ObservatoryError('invalid_input', message);
}

/** The folder's manifest, after checking that it is a published snapshot with an archive, outside `root`. */
async function sourceManifest(folder: string, root: string) {
  const isSnapshot = await stat(join(folder, MANIFEST_FILE)).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!isSnapshot) throw badInput(`${folder}: not a published snapshot folder (no ${MANIFEST_FILE})`);
  if (dirname(folder) === root) {
    throw badInput(`--out ${root} is the snapshots root of ${folder}; reparse publishes into another root`);
  }
  const manifest = await readManifest(folder);
  if (manifest.schemaVersion < 3 || warcFilesIn(folder).length === 0) {
    throw badInput(
      `${folder} has no WARC archive (crawled with --no-warc, or before schema 3): nothing to reparse`,
    );
  }
  return manifest;
}

/**
 * `observatory reparse`: rebuilds a published snapshot's statements from its WARC files alone and
 * publishes the result as a snapshot of the same name under another root (docs/archive.md,
 * "Re-parsing"). Each row that downloaded a body is read again from its response record: the body
 * decoded as the crawler decodes it, read by readDocument within the crawl's recorded limits, JSON-LD
 * contexts answered from the archive. A 304 row takes its statements from the snapshot it carried
 * them from (its quads.parquet, beside the folder). Every other column is the published row's; the
 * schedule is the published one; the WARC files are linked in. Rows are streamed from DuckDB and at
 * most a few documents are held at once.
 */
export async function reparseSnapshot(options: ReparseOptions): Promise<PublishedSnapshot> {
  const folder = resolve(options.folder);
  const root = resolve(options.root);
  const manifest = await sourceManifest(folder, root);
  const config: CrawlConfig = { ...CRAWL_DEFAULTS, ...(manifest.config as Partial<CrawlConfig>) };
  const limits = {
    cpuBudgetMs: config.parseBudgetMs,
    maxContexts: config.maxContextsPerDocument,
    heapMb: config.parseMemoryMb,
  };
  const rows = await openDuckDb({ memoryLimit: '128MB' });
  const lookups = await openDuckDb({ memoryLimit: '64MB' });
  try {
    const query = serialised(lookups.connection);
    const loadContext: ContextLoader = archivedContextLoader(folder, join(folder, CDXJ_FILE), query, config);
    const documentsFile = sqlString(join(folder, parquetFileName('documents')));
    const [[total]] = await queryRows(rows.connection, `SELECT count(*) FROM read_parquet(${documentsFile})`);
    const carried = (record: DocumentRecord) =>
      query(async (connection) => {
        const quads = sqlString(join(dirname(folder), record.carriedFrom!, parquetFileName('quads')));
        const byGraph = await statementsByGraph(
          connection,
          `SELECT graph, subject, predicate, object, object_kind, datatype, lang FROM read_parquet(${quads})
            WHERE graph = ${sqlString(record.finalUrl)}`,
        );
        return byGraph.get(record.finalUrl) ?? [];
      });
    const rebuild = async (record: DocumentRecord): Promise<CrawledDocument> => {
      if (record.downloadedBy) return { record, statements: [] };
      if (record.carriedFrom) {
        const statements = await carried(record);
        return { record: { ...record, statements: statements.length }, statements };
      }
      if (record.warcFilename && (record.error === null || READ_ERRORS.has(record.error))) {
        return reread(folder, record, config, limits, loadContext);
      }
      if (record.statements > 0) {
        throw new ObservatoryError(
          'corrupt',
          `${folder}: ${record.url} has statements but no WARC record to read`,
        );
      }
      return { record, statements: [] };
    };
    let done = 0;
    let statements = 0;
    const state = () => ({ done, total: Number(total), statements });
    const documents = async function* () {
      const source = streamRecords(rows.connection, recordsSql(folder));
      for await (const document of readAhead(source, 2 * availableParallelism(), rebuild)) {
        done++;
        statements += document.statements.length;
        options.progress?.update(state());
        yield document;
      }
      options.progress?.finish(state());
    };
    const publication = await openPublication({
      root,
      name: manifest.name,
      kind: manifest.kind,
      startedAt: Date.parse(manifest.startedAt),
      endedAt: Date.parse(manifest.endedAt),
      config: manifest.config as object,
      documents,
      archive: folder,
      reparsedFrom: {
        snapshot: manifest.name,
        manifestSha256: (await hashFile(join(folder, MANIFEST_FILE))).sha256,
        crawledWith: manifest.softwareVersion,
      },
      clock: options.clock,
      log: options.log,
    });
    return await publication.commit(await readSchedule(folder));
  } finally {
    rows.close();
    lookups.close();
  }
}

/**
 * A downloaded row read again from its response record: the parse fields (format, statements,
 * graph hash, error, content hash, bytes) are the re-read's, the rest the published row's.
 */
async function reread(
  folder: string,
  record: DocumentRecord,
  config: CrawlConfig,
  limits: Parameters<typeof readDocument>[1],
  loadContext: ContextLoader,
): Promise<CrawledDocument> {
  const response = await readArchivedResponse(folder, {
    filename: record.warcFilename!,
    offset: record.warcOffset!,
    length: record.warcLength!,
  });
  if (response.url !== record.finalUrl) {
    throw new ObservatoryError(
      'corrupt',
      `${folder}: ${record.url} points at a record of ${response.url}, not of ${record.finalUrl}`,
    );
  }
  let body: Buffer;
  try {
    const encoding = response.headers.get('content-encoding') ?? undefined;
    body = (await decodeBody(Readable.from([response.payload]), encoding, config.maxBytes, 'fail')).body;
  } catch (error) {
    if (!(error instanceof ObservatoryError)) throw error;
    const failed = { error: error.code, errorMessage: error.message, format: null, graphHash: null };
    return { record: { ...record, ...failed, statements: 0, contentSha256: null, bytes: 0 }, statements: [] };
  }
  const contentType = response.headers.get('content-type');
  const parsed = await readDocument({ body, contentType, documentUrl: record.finalUrl, loadContext }, limits);
  const statements: readonly Statement[] = parsed.statements;
  return {
    record: {
      ...record,
      error: parsed.error,
      errorMessage: parsed.errorMessage,
      format: parsed.format,
      bytes: body.length,
      statements: statements.length,
      contentSha256: createHash('sha256').update(body).digest('hex'),
      graphHash: parsed.graphHash,
    },
    statements,
  };
}
