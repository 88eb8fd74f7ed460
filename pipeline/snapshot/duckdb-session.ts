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
