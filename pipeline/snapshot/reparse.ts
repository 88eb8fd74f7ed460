import { lstat, realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  type RecordLimits,
  type RevisitReferents,
  readArchivedResponse,
  recordLimits,
} from '../archive/index.ts';
import type {
  Clock,
  CrawlConfig,
  CrawledDocument,
  DocumentRecord,
  Logger,
  Progress,
  Statement,
} from '../core/index.ts';
import { ObservatoryError, quoteInput } from '../core/index.ts';
import { type ContextLoader, readDocument, readLimits } from '../rdf/index.ts';
import { listedWarcFiles, revisitReferents } from './archive-dependencies.ts';
import { contentSha256, decodedBody, READ_ERRORS } from './archived-body.ts';
import { archivedContextLoader } from './archived-contexts.ts';
import { LOOKUP_MEMORY_LIMIT, openCaptureLookup } from './capture-index.ts';
import { openDuckDb, queryRows, sqlString } from './duckdb-session.ts';
import { hashFile } from './durable-fs.ts';
import { corrupt } from './folder-error.ts';
import { readManifest, type SnapshotManifest } from './manifest.ts';
import { readingConfig } from './manifest-config.ts';
import { openPublication, type PublishedSnapshot } from './publish.ts';
import { readSchedule } from './read-schedule.ts';
import { carriedDocuments, carriedSources, uncarriedRecords } from './reparse-rows.ts';
import { MANIFEST_FILE, parquetFileName } from './schema.ts';
import { isSnapshotName } from './snapshot-name.ts';
import { verifyFiles, verifySnapshot } from './verify.ts';

export interface ReparseOptions {
  /** A published snapshot folder with its WARC files (schema 3). */
  readonly folder: string;
  /** The snapshots root the rebuilt snapshot is published under; not the folder's own root. */
  readonly root: string;
  readonly clock: Clock;
  readonly log?: Logger;
  /** Told as documents are rebuilt: done of total, and the statements so far. */
  readonly progress?: Progress;
  /** A progress for each long check of the source folder, verified first (verifySnapshot). */
  readonly verifyProgress?: (counting: string) => Progress;
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

/**
 * The folder's manifest, after checking that it is a published snapshot with an archive, outside
 * `root`. A folder whose manifest lists no WARC file, or none of whose listed WARC files is there (a
 * mirror of the Parquet alone), has nothing to reparse: bad input, not a damaged folder.
 */
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
  const present = await Promise.all(
    listedWarcFiles(manifest).map((name) =>
      lstat(join(folder, name)).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (manifest.schemaVersion < 3 || !present.includes(true)) {
    throw badInput(
      `${folder} has no WARC archive (crawled with --no-warc, or before schema 3): nothing to reparse`,
    );
  }
  return manifest;
}

/**
 * The snapshot `name` the 304 rows of `folder` carry their statements from, beside it: it must be
 * there, and its manifest and quads.parquet (what reparse reads of it) what its SHA256SUMS says
 * (verifyFiles). Anything else is `corrupt`, naming the snapshot, before anything is published.
 */
async function checkCarriedSource(folder: string, name: string): Promise<void> {
  const where = `its 304 rows carry statements over from ${quoteInput(name)}`;
  if (!isSnapshotName(name)) throw corrupt(folder, `${where}, which is not a snapshot name`);
  const source = join(dirname(folder), name);
  const found = await stat(source).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!found) {
    throw corrupt(
      folder,
      `${where}, a snapshot that is not beside it in ${dirname(folder)} (reparse reads them there)`,
    );
  }
  await verifyFiles(source, { read: [parquetFileName('quads')] });
}

/**
 * The snapshots the folder's revisits refer into must be published under `root` first: the result
 * links the same WARC files, and its revisits resolve only beside them (docs/archive.md, "Revisits").
 */
async function checkDependenciesUnder(
  folder: string,
  manifest: SnapshotManifest,
  root: string,
): Promise<void> {
  for (const name of manifest.dependsOn ?? []) {
    const there = await stat(join(root, name, MANIFEST_FILE)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!there) {
      throw badInput(
        `${folder} depends on snapshot ${name} (its revisit records refer to records there): reparse ${name} into ${root} first`,
      );
    }
  }
}

/**
 * A context loader that remembers the first `corrupt` record it met: the parsers take a failed
 * context as the document's failure, but a damaged archive must stop the reparse (`damaged`).
 */
function watchedLoader(load: ContextLoader) {
  let damage: ObservatoryError | null = null;
  const loader: ContextLoader = (url) =>
    load(url).catch((error: unknown) => {
      if (error instanceof ObservatoryError && error.code === 'corrupt') damage ??= error;
      throw error;
    });
  return { loader, damaged: () => damage };
}

/** What rereading a row needs of its source: the folder, its archive's files and limits, its crawl's reading limits. */
interface Source {
  readonly folder: string;
  readonly config: CrawlConfig;
  readonly records: RecordLimits;
  /** Where the records its revisits refer to lie (revisitReferents). */
  readonly referents: RevisitReferents;
  readonly loadContext: ContextLoader;
  /** The first damaged record a JSON-LD context was looked up in, if any (watchedLoader). */
  readonly damaged: () => ObservatoryError | null;
}

/**
 * `observatory reparse`: rebuilds a published snapshot's statements from its WARC files alone and
 * publishes the result as a snapshot of the same name under another root (docs/archive.md,
 * "Re-parsing"). Nothing of the folder is trusted before it is checked: the whole folder first
 * verifies (verifySnapshot: files against SHA256SUMS and the manifest, regular files only, tables,
 * every pointer), the manifest's config is one a crawl runs with (readingConfig), and the snapshots
 * its 304 rows carry statements from are beside it, their files checked (checkCarriedSource). Each
 * row that downloaded a body is then read again from its response record, which must match its own
 * digests: the body decoded as the crawler decodes it, and it must be the body the crawl read (its
 * content_sha256), read by readDocument within the crawl's recorded limits, JSON-LD contexts
 * answered from the archive. A 304 row takes its statements, after the others, from the snapshot it
 * carried them from (its quads.parquet, beside the folder). Every other column is the published
 * row's; the schedule is the published one; the WARC files the manifest lists are linked in (no
 * other file of the folder). Rows are streamed from DuckDB and at most a few documents are held at once.
 */
export async function reparseSnapshot(options: ReparseOptions): Promise<PublishedSnapshot> {
  const folder = resolve(options.folder);
  const root = resolve(options.root);
  const manifest = await sourceManifest(folder, root);
  await verifySnapshot(folder, { progress: options.verifyProgress });
  await checkDependenciesUnder(folder, manifest, root);
  const config = readingConfig(folder, manifest);
  const records = recordLimits(config);
  const warcs = listedWarcFiles(manifest);
  const rows = await openDuckDb({ memoryLimit: '128MB' });
  const lookups = await openDuckDb({ memoryLimit: LOOKUP_MEMORY_LIMIT });
  try {
    const carried = await carriedSources(rows.connection, folder);
    for (const name of carried) await checkCarriedSource(folder, name);
    const query = serialised(lookups.connection);
    const referents = await revisitReferents(folder, manifest);
    const contexts = watchedLoader(
      archivedContextLoader(
        folder,
        await openCaptureLookup(folder, manifest, query),
        config,
        new Set(warcs),
        referents,
      ),
    );
    const source: Source = {
      folder,
      config,
      records,
      referents,
      loadContext: contexts.loader,
      damaged: contexts.damaged,
    };
    const documentsFile = sqlString(join(folder, parquetFileName('documents')));
    const [[total]] = await queryRows(rows.connection, `SELECT count(*) FROM read_parquet(${documentsFile})`);
    const rebuild = async (record: DocumentRecord): Promise<CrawledDocument> => {
      if (record.downloadedBy) return { record, statements: [] };
      if (record.warcFilename && (record.error === null || READ_ERRORS.has(record.error))) {
        return reread(source, record);
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
      for (const name of carried) yield* carriedDocuments(connections, folder, name);
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
      archive: { dir: folder, files: warcs, limits: records },
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
 * graph hash, error, content hash, bytes) are the re-read's, the rest the published row's. The
 * record must match its digests, and its body, decoded, must be the one the crawl read (the row's
 * content_sha256): the crawl decoded it with the same decoder within the same limit, so a body
 * that differs, or no longer decodes, is a damaged archive (`corrupt`), not a new reading.
 */
async function reread(source: Source, record: DocumentRecord): Promise<CrawledDocument> {
  const { folder, config } = source;
  const pointer = { filename: record.warcFilename!, offset: record.warcOffset!, length: record.warcLength! };
  const where = `${pointer.filename} at ${pointer.offset}`;
  const response = await readArchivedResponse(folder, pointer, source.records, {
    digests: true,
    referents: source.referents,
  }).catch((error: unknown) => {
    throw error instanceof ObservatoryError ? corrupt(folder, `${record.url}: ${error.message}`) : error;
  });
  if (response.url !== record.finalUrl) {
    throw corrupt(folder, `${record.url} points at a record of ${response.url}, not of ${record.finalUrl}`);
  }
  let body: Buffer;
  try {
    body = await decodedBody(response, config.maxBytes);
  } catch (error) {
    if (record.contentSha256 !== null) {
      throw corrupt(
        folder,
        `${record.url}: its body (${where}) does not decode as the crawl decoded it: ${(error as Error).message}`,
      );
    }
    if (!(error instanceof ObservatoryError)) throw error;
    const failed = { error: error.code, errorMessage: error.message, format: null, graphHash: null };
    return { record: { ...record, ...failed, statements: 0, contentSha256: null, bytes: 0 }, statements: [] };
  }
  const sha256 = contentSha256(body);
  if (record.contentSha256 !== null && sha256 !== record.contentSha256) {
    throw corrupt(
      folder,
      `${record.url}: the body of its record (${where}) is not the body the crawl read (its SHA-256 is not the row's content_sha256)`,
    );
  }
  const contentType = response.headers.get('content-type');
  const parsed = await readDocument(
    { body, contentType, documentUrl: record.finalUrl, loadContext: source.loadContext },
    readLimits(config),
  );
  const damaged = source.damaged();
  if (damaged !== null) throw damaged;
  const statements: readonly Statement[] = parsed.statements;
  return {
    record: {
      ...record,
      error: parsed.error,
      errorMessage: parsed.errorMessage,
      format: parsed.format,
      bytes: body.length,
      statements: statements.length,
      contentSha256: sha256,
      graphHash: parsed.graphHash,
    },
    statements,
  };
}
