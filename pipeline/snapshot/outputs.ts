import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StreamParser } from 'n3';
import type { CrawlConfig, Progress } from '../core/index.ts';
import { sqlString } from './duckdb-session.ts';
import { corrupt } from './folder-error.ts';
import type { ManifestFile, SnapshotManifest } from './manifest.ts';
import { exportNquads } from './nquads-export.ts';
import { countGraphStatements, type ExportedSnapshot, exportTable } from './parquet-export.ts';
import {
  hasTable,
  NQUADS_FILE,
  parquetFileName,
  type SchemaVersion,
  type TableName,
  tableColumns,
} from './schema.ts';
import { digestOutput } from './snapshot-digest.ts';
import { type ArchiveSource, type CdxjDraft, warcOutput } from './warc-output.ts';

/** What an output is written from: the staged crawl in DuckDB and the folder being built. */
export interface WriteContext {
  readonly connection: DuckDBConnection;
  /** The snapshot folder being built. */
  readonly work: string;
  /** The publish's scratch folder, removed after the publish. */
  readonly scratch: string;
  readonly snapshot: ExportedSnapshot;
  /** The crawl's WARC files; null when it kept no archive. */
  readonly archive: ArchiveSource | null;
  /** The unsorted CDXJ lines of those files (draftCdxj); null without an archive. */
  readonly cdxjDraft: Promise<CdxjDraft | null>;
  /** The files the outputs before this one wrote, by name. */
  readonly written: ReadonlyMap<string, WrittenFile>;
}

/** What an output checks in a published folder, beyond the size and checksum every listed file gets. */
export interface CheckContext {
  readonly folder: string;
  readonly manifest: SnapshotManifest;
  readonly version: SchemaVersion;
  /** The manifest's config as its readers rely on it, validated (readingConfig). */
  readonly config: CrawlConfig;
  /** `verify --deep`: also every check that reads every byte of the output (each WARC record's digests). */
  readonly deep: boolean;
  readonly connection: DuckDBConnection;
  /** A progress for one long check, named by what it counts (`data.nq.gz bytes`). */
  readonly progress?: (counting: string) => Progress;
}

/** A file an output wrote into the folder: its name, and its rows when it has rows. */
export interface WrittenFile {
  readonly name: string;
  readonly rows?: number;
}

/**
 * One kind of file of a snapshot folder: how publishing writes it and how `verify` checks it. The
 * publisher and the verifier both loop over OUTPUTS, so a new file is one more entry here.
 */
export interface SnapshotOutput {
  /** The name its writing is reported under (`publish phase` logs, a key of PHASE_WEIGHTS). */
  readonly phase: string;
  write(ctx: WriteContext): Promise<readonly WrittenFile[]>;
  /** Throws a `corrupt` error naming the problem. */
  check(ctx: CheckContext): Promise<void>;
}

function listed(ctx: CheckContext, name: string): ManifestFile {
  const file = ctx.manifest.files.find((f) => f.name === name);
  if (!file) throw corrupt(ctx.folder, `the manifest does not list ${name}`);
  return file;
}

async function firstValue(connection: DuckDBConnection, sql: string): Promise<unknown> {
  return (await connection.runAndReadAll(sql)).getRows()[0]?.[0];
}

/** Row count, documented columns of the folder's schema version, and that version in the key-value metadata. */
async function checkParquet(ctx: CheckContext, table: TableName): Promise<void> {
  const { connection, folder } = ctx;
  const name = parquetFileName(table);
  const entry = listed(ctx, name);
  const file = sqlString(join(folder, name));
  const rows = await firstValue(connection, `SELECT num_rows FROM parquet_file_metadata(${file})`);
  if (Number(rows) !== entry.rows) {
    throw corrupt(folder, `${name} has ${rows} rows, the manifest says ${entry.rows}`);
  }
  const columns = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${file})`)).getRows();
  const actual = columns.map((c) => `${c[0]} ${c[1]}`).join(', ');
  const documented = tableColumns(table, ctx.version)
    .map((c) => `${c.name} ${c.type}`)
    .join(', ');
  if (actual !== documented)
    throw corrupt(folder, `${name} has columns (${actual}), expected (${documented})`);
  const version = await firstValue(
    connection,
    `SELECT value::VARCHAR FROM parquet_kv_metadata(${file}) WHERE key::VARCHAR = 'observatory_schema_version'`,
  );
  if (version !== String(ctx.version)) {
    throw corrupt(folder, `${name} does not carry schema version ${ctx.version} in its metadata`);
  }
}

/**
 * Schema 2's identity between documents and quads: each graph's rows in quads.parquet are the
 * `statements` of the one row that downloaded it (downloaded_by = url, final_url = graph).
 */
async function checkStatementCounts(ctx: CheckContext): Promise<void> {
  const documents = sqlString(join(ctx.folder, parquetFileName('documents')));
  const quads = sqlString(join(ctx.folder, parquetFileName('quads')));
  const [mismatch] = (
    await ctx.connection.runAndReadAll(`SELECT coalesce(o.final_url, g.graph), o.statements, g.statements
      FROM (SELECT final_url, statements FROM read_parquet(${documents}) WHERE downloaded_by = url AND statements > 0) AS o
      FULL JOIN (SELECT graph, count(*) AS statements FROM read_parquet(${quads}) GROUP BY graph) AS g
        ON g.graph = o.final_url
      WHERE o.statements IS DISTINCT FROM g.statements LIMIT 1`)
  ).getRows();
  if (mismatch) {
    throw corrupt(
      ctx.folder,
      `graph ${mismatch[0]} has ${mismatch[2] ?? 0} rows in quads.parquet, its downloading row says ${mismatch[1] ?? 0} statements`,
    );
  }
}

/**
 * delta.parquet against changes.parquet: each changed document's rows are its `added` and `removed`
 * statements, no other document has rows, and every row is one or the other.
 */
async function checkDeltaCounts(ctx: CheckContext): Promise<void> {
  const changes = sqlString(join(ctx.folder, parquetFileName('changes')));
  const delta = sqlString(join(ctx.folder, parquetFileName('delta')));
  const [mismatch] = (
    await ctx.connection.runAndReadAll(`SELECT url, c.added, c.removed, coalesce(d.added, 0), coalesce(d.removed, 0), d.other
      FROM (SELECT url, added, removed FROM read_parquet(${changes}) WHERE changed) AS c
      FULL JOIN (SELECT url, count(*) FILTER (op = 'added') AS added, count(*) FILTER (op = 'removed') AS removed,
          count(*) FILTER (op IS DISTINCT FROM 'added' AND op IS DISTINCT FROM 'removed') AS other
        FROM read_parquet(${delta}) GROUP BY url) AS d USING (url)
      WHERE c.added IS DISTINCT FROM coalesce(d.added, 0) OR c.removed IS DISTINCT FROM coalesce(d.removed, 0)
        OR d.other > 0
      LIMIT 1`)
  ).getRows();
  if (mismatch) {
    const [url, added, removed, rowsAdded, rowsRemoved, other] = mismatch;
    throw corrupt(
      ctx.folder,
      Number(other) > 0
        ? `${parquetFileName('delta')} has rows of ${url} whose op is neither added nor removed`
        : `${parquetFileName('delta')} has ${rowsAdded} added and ${rowsRemoved} removed rows of ${url}, ` +
            `changes.parquet says ${added ?? 'no change'} and ${removed ?? 'no change'}`,
    );
  }
}

/** One table as zstd Parquet (parquet-export.ts). quads.parquet also leaves each graph's count for documents. */
function parquetOutput(table: TableName): SnapshotOutput {
  const name = parquetFileName(table);
  return {
    phase: name,
    async write({ connection, work, snapshot }) {
      const rows = await exportTable(connection, table, join(work, name), snapshot);
      if (table === 'quads') await countGraphStatements(connection, join(work, name));
      return [{ name, rows }];
    },
    async check(ctx) {
      if (!hasTable(table, ctx.version)) return;
      await checkParquet(ctx, table);
      if (table === 'quads' && ctx.version >= 2) await checkStatementCounts(ctx);
      if (table === 'delta') await checkDeltaCounts(ctx);
    },
  };
}

/** Parses data.nq.gz as N-Quads (n3's streaming parser) and returns how many quads it holds. */
async function countNquads(folder: string, total: number, progress?: Progress): Promise<number> {
  const path = join(folder, NQUADS_FILE);
  let quads = 0;
  let read = 0;
  let unnamed = 0;
  const source = createReadStream(path);
  source.on('data', (chunk) => {
    read += chunk.length;
    progress?.update({ done: read, total, extra: { quads } });
  });
  const sink = new Writable({
    objectMode: true,
    write(quad: { graph: { termType: string } }, _encoding, done) {
      quads++;
      if (quad.graph.termType !== 'NamedNode') unnamed++;
      done();
    },
  });
  try {
    await pipeline(source, createGunzip(), new StreamParser({ format: 'N-Quads' }), sink);
  } catch (error) {
    throw corrupt(folder, `${NQUADS_FILE} is not valid gzipped N-Quads: ${(error as Error).message}`);
  }
  progress?.finish({ done: read, total, extra: { quads } });
  if (unnamed > 0) throw corrupt(folder, `${NQUADS_FILE} has ${unnamed} quads outside a named graph`);
  return quads;
}

/** data.nq.gz: the lines of quads.parquet, in its order, so it is written after it. */
const nquadsOutput: SnapshotOutput = {
  phase: NQUADS_FILE,
  async write({ connection, work, scratch, written }) {
    const quads = parquetFileName('quads');
    const text = join(scratch, 'publish-data.nq');
    await exportNquads(connection, join(work, quads), join(work, NQUADS_FILE), text);
    return [{ name: NQUADS_FILE, rows: written.get(quads)?.rows }];
  },
  async check(ctx) {
    const entry = listed(ctx, NQUADS_FILE);
    const quads = await countNquads(ctx.folder, entry.bytes, ctx.progress?.(`${NQUADS_FILE} bytes`));
    if (quads !== ctx.manifest.counts.statements || quads !== entry.rows) {
      throw corrupt(
        ctx.folder,
        `${NQUADS_FILE} has ${quads} quads, the manifest says ${ctx.manifest.counts.statements}`,
      );
    }
  },
};

/**
 * Every output of a snapshot folder, in the order they are written (quads.parquet first: documents
 * takes its statement counts from it and data.nq.gz its lines) and listed in the manifest; the
 * digest is queried from the tables (delta.parquet among them, since schema 5) once they are all written; the crawl's WARC files and their
 * index come last.
 */
export const OUTPUTS: readonly SnapshotOutput[] = [
  parquetOutput('quads'),
  parquetOutput('documents'),
  parquetOutput('redirects'),
  parquetOutput('changes'),
  parquetOutput('schedule'),
  parquetOutput('delta'),
  nquadsOutput,
  digestOutput,
  warcOutput,
];
