import type { ExampleQuery } from './portal-data.ts';

/**
 * The tables of every snapshot folder. The SQL console (site/src/lib/sql-console.ts) defines one
 * view of each name over that table's Parquet in every snapshot of the catalogue, by URL. The
 * snapshot stage's TABLE_NAMES again, because the console's browser bundle cannot import that
 * module (it loads DuckDB's Node bindings); test/portal/console-examples.test.ts keeps them equal.
 */
export const CONSOLE_TABLES = ['documents', 'quads', 'redirects', 'changes', 'schedule', 'delta'] as const;

const GLOB = new RegExp(`read_parquet\\('snapshots/\\*/(${CONSOLE_TABLES.join('|')})\\.parquet'\\)`, 'g');

/**
 * docs/queries as the console runs them: HTTP cannot glob, so each
 * `read_parquet('snapshots/*\/<table>.parquet')` becomes the view of that table.
 */
export function consoleExamples(queries: readonly ExampleQuery[]): ExampleQuery[] {
  return queries.map((q) => ({ ...q, sql: q.sql.replace(GLOB, '$1') }));
}
