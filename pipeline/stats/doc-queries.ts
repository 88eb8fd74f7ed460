import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../snapshot/index.ts';
import type { ExampleQuery } from './portal-data.ts';

/** docs/queries: the example queries researchers copy; the portal shows and runs these very files. */
export const QUERIES_DIR = new URL('../../docs/queries/', import.meta.url).pathname;

/** Every example query with the research question its leading comment asks. */
export async function exampleQueries(): Promise<ExampleQuery[]> {
  const files = (await readdir(QUERIES_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(join(QUERIES_DIR, file), 'utf8');
      const comment = sql
        .split('\n')
        .filter((l) => l.startsWith('--'))
        .map((l) => l.replace(/^--\s?/, ''))
        .join(' ');
      return { file, question: comment, sql };
    }),
  );
}

/**
 * An example query rewritten to read exactly the published folders: `'snapshots/*\/X.parquet'`
 * becomes the list of X.parquet files of the catalogue (never `.incomplete/`), and the final
 * `;` goes so that the query can be nested.
 */
export function pinnedQuery(sql: string, root: string, names: readonly string[]): string {
  return sql
    .replace(/'snapshots\/\*\/(\w+\.parquet)'/g, (_, file: string) => {
      const paths = names.map((n) => sqlString(join(root, n, file)));
      return `[${paths.join(', ')}]`;
    })
    .trim()
    .replace(/;$/, '');
}

/** Runs an example query (nested in `wrap`, which names it `q`) over the published snapshots. */
export async function runExampleQuery(
  connection: DuckDBConnection,
  file: string,
  root: string,
  names: readonly string[],
  wrap = 'SELECT * FROM q',
): Promise<unknown[][]> {
  const sql = pinnedQuery(await readFile(join(QUERIES_DIR, file), 'utf8'), root, names);
  return (await connection.runAndReadAll(`WITH q AS (${sql}) ${wrap}`)).getRows();
}
