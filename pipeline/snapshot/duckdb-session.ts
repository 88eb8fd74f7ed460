import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { invalidInput, ioError } from '../core/index.ts';

/** One DuckDB database and its connection; `close` releases both. */
export interface DuckDbSession {
  readonly connection: DuckDBConnection;
  close(): void;
}

export interface DuckDbSessionOptions {
  /** A database file (publishing large crawls) or `:memory:` (reading snapshots), the default. */
  readonly path?: string;
  /**
   * Where DuckDB spills what does not fit its memory limit (sorts, joins, big COPYs). When absent,
   * a fresh folder under the system temp directory, removed on close: two sessions never share one.
   */
  readonly tempDirectory?: string;
  /** DuckDB's `memory_limit`; when absent, OBSERVATORY_DUCKDB_MEMORY_LIMIT or 384MB. */
  readonly memoryLimit?: string;
  /**
   * False lets DuckDB return rows of a query without ORDER BY in any order, which spares memory in
   * large scans and COPYs; a reader of a file's order sets it back for its own query.
   */
  readonly preserveInsertionOrder?: boolean;
}

/** The environment variable operators set to give DuckDB more or less memory. */
const MEMORY_LIMIT_VARIABLE = 'OBSERVATORY_DUCKDB_MEMORY_LIMIT';
/**
 * DuckDB takes up to 80% of the machine's memory unless told otherwise. A publish's peak is this
 * limit plus 0.3-0.6 GiB (what DuckDB's JSON reader, sorts and Parquet writer hold outside it);
 * 384MB publishes 4-16 million statements at the speed 512MB did (docs/operating.md, Memory),
 * and DuckDB spills the rest to disk.
 */
const DEFAULT_MEMORY_LIMIT = '384MB';

/** A DuckDB memory size (`64MB`, `1.5GiB`), checked here rather than by DuckDB mid-publish. */
function parseMemoryLimit(text: string, what = MEMORY_LIMIT_VARIABLE): string {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i.exec(text);
  const bytes = match ? Number(match[1]) * memoryUnit(match[2]) : 0;
  if (!match || bytes < 16e6) {
    throw invalidInput(
      what,
      'a memory size of at least 16MB, such as 512MB or 2GB (units KB, MB, GB, TB, KiB, MiB, GiB, TiB)',
      text,
    );
  }
  return `${match[1]}${match[2]}`;
}

/** Bytes of a memory size as parseMemoryLimit returns it (`512MB`: 512e6). */
export function memoryBytes(limit: string): number {
  const match = /^(\d+(?:\.\d+)?)(\w+)$/.exec(limit)!;
  return Number(match[1]) * memoryUnit(match[2]);
}

function memoryUnit(unit: string): number {
  const u = unit.toLowerCase();
  const power = 'kmgt'.indexOf(u[0]) + 1;
  return u.endsWith('ib') ? 1024 ** power : 1000 ** power;
}

let environmentLimit: string | undefined;

/**
 * The operator's limit (OBSERVATORY_DUCKDB_MEMORY_LIMIT, else 384MB), read and validated once per
 * process; the CLI asks at start, so that a bad value stops a command before it crawls, not after.
 */
export function duckDbMemoryLimit(): string {
  environmentLimit ??= parseMemoryLimit(process.env[MEMORY_LIMIT_VARIABLE] ?? DEFAULT_MEMORY_LIMIT);
  return environmentLimit;
}

/**
 * Opens a DuckDB database with its memory bounded: a memory limit, a spill folder, and optionally
 * without insertion order. Every DuckDB session of the pipeline is opened here.
 */
export async function openDuckDb(options: DuckDbSessionOptions = {}): Promise<DuckDbSession> {
  const path = options.path ?? ':memory:';
  const memoryLimit =
    options.memoryLimit === undefined
      ? duckDbMemoryLimit()
      : parseMemoryLimit(options.memoryLimit, 'memoryLimit');
  const ownTemp =
    options.tempDirectory === undefined ? mkdtempSync(join(tmpdir(), 'observatory-duckdb-')) : undefined;
  const removeOwnTemp = () => {
    if (ownTemp) rmSync(ownTemp, { recursive: true, force: true });
  };
  try {
    const instance = await DuckDBInstance.create(path, {
      memory_limit: memoryLimit,
      temp_directory: options.tempDirectory ?? ownTemp!,
      preserve_insertion_order: String(options.preserveInsertionOrder ?? true),
    });
    const connection = await instance.connect();
    // schema-1 TIMESTAMPs are UTC: casts between them and TIMESTAMPTZ (a history read across both
    // versions) must not take the machine's zone, and TIMESTAMPTZ prints in UTC
    await connection.run(`SET TimeZone = 'UTC'`);
    return {
      connection,
      close() {
        connection.closeSync();
        instance.closeSync();
        removeOwnTemp();
      },
    };
  } catch (error) {
    removeOwnTemp();
    throw ioError('open DuckDB database', path, error);
  }
}

/** A SQL string literal: paths and names are interpolated into COPY and read_parquet, which take no parameters. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** All rows of a query (small results: counts, rankings). */
export async function queryRows(connection: DuckDBConnection, sql: string): Promise<unknown[][]> {
  return (await connection.runAndReadAll(sql)).getRows();
}

/** A `SELECT key, count` query as a record (null keys as `none`). */
export async function countBy(connection: DuckDBConnection, sql: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [key, count] of await queryRows(connection, sql)) out[String(key ?? 'none')] = Number(count);
  return out;
}

/**
 * SQL: the observation retrieved RDF, i.e. no error or a `parse` error (the statements before it
 * were kept): the data dictionary's "comparable". `errorColumn` names the error column to test.
 */
export function retrievedRdf(errorColumn = 'error'): string {
  return `(${errorColumn} IS NULL OR ${errorColumn} = 'parse')`;
}
