import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
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
import { openDuckDb, queryRows, sqlString } from './duckdb-session.ts';
import { hashFile } from './durable-fs.ts';
import { readManifest } from './manifest.ts';
import { openPublication, type PublishedSnapshot } from './publish.ts';
import { readSchedule } from './read-schedule.ts';
import { carriedDocuments, carriedSources, uncarriedRecords } from './reparse-rows.ts';
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

/** One query at a time on a connection that several documents use concurrently (context lookups). */
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
  // compared as the file system resolves them, so that a symbolic link cannot hide the source's root
  const real = await realpath(folder);
  const realRoot = await realpath(root).catch(() => root);
  if (dirname(real) === realRoot) {
    throw badInput(`--out ${root} is the snapshots root of ${folder}; reparse publishes into another root`);
  }
  if (`${realRoot}${sep}`.startsWith(`${real}${sep}`)) {
    throw badInput(`--out ${root} is inside ${folder}; reparse publishes into another root`);
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
 * contexts answered from the archive. A 304 row takes its statements, after the others, from the
 * snapshot it carried them from (its quads.parquet, beside the folder). Every other column is the
 * published row's; the schedule is the published one; the WARC files are linked in. Rows are
 * streamed from DuckDB and at most a few documents are held at once.
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
    const rebuild = async (record: DocumentRecord): Promise<CrawledDocument> => {
      if (record.downloadedBy) return { record, statements: [] };
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
    const connections = [rows.connection, lookups.connection] as const;
    const everyDocument = async function* () {
      yield* readAhead(uncarriedRecords(rows.connection, folder), 2 * availableParallelism(), rebuild);
      for (const source of await carriedSources(rows.connection, folder)) {
        yield* carriedDocuments(connections, folder, source);
      }
    };
    const documents = async function* () {
      for await (const document of everyDocument()) {
        done++;
        statements += document.statements.length;
        options.progress?.update(state());
        yield document;
      }
      options.progress?.finish(state());
    };
    const schedule = await readSchedule(folder);
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
      ...(manifest.expansion ? { expansion: manifest.expansion } : {}),
      clock: options.clock,
      log: options.log,
    });
    return await publication.commit(schedule);
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
