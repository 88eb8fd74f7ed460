import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { ObservatoryError } from '../core/index.ts';

/** One DuckDB database and its connection; `close` releases both. */
export interface DuckDbSession {
  readonly connection: DuckDBConnection;
  close(): void;
}

/** Opens a DuckDB database (a file for publishing large crawls, `:memory:` to read snapshots). */
export async function openDuckDb(path = ':memory:'): Promise<DuckDbSession> {
  try {
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    // schema-1 TIMESTAMPs are UTC: casts between them and TIMESTAMPTZ (a history read across both
    // versions) must not take the machine's zone, and TIMESTAMPTZ prints in UTC
    await connection.run(`SET TimeZone = 'UTC'`);
    return {
      connection,
      close() {
        connection.closeSync();
        instance.closeSync();
      },
    };
  } catch (error) {
    throw new ObservatoryError('io', `cannot open DuckDB database ${path}: ${(error as Error).message}`, {
      cause: error,
    });
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
