/**
 * A published snapshot's tables as sorted lines, every column but those that say when or where in
 * the WARC files, so that two crawls of the same Web (one process, the coordinator) compare row by
 * row (shared-targets.test.ts, hostile-text.test.ts).
 */
import { join } from 'node:path';
import { openDuckDb, sqlString, TABLES, type TableName } from '../../pipeline/snapshot/index.ts';

/**
 * Columns left out of the comparison, each with why it differs between two crawls of the same Web:
 * when things happened, and where the run's WARC files put their records.
 */
export const RUN_COLUMNS: Readonly<Record<string, string>> = {
  snapshot_start: "the run's start as its clock read it (the test clock runs on from the week's start)",
  fetched_at: 'when the request started',
  duration_ms: 'how long the fetch took',
  headers: 'the answer headers hold Date',
  at: 'when the redirect answered',
  warc_filename: 'the WARC files are named by the run',
  warc_offset: 'records are written in the order fetches ended',
  warc_length: 'a record holds its dates and IDs',
};

/** Rows of a query on a published folder's tables (`{table}` stands for that table's file). */
export async function queryFolder(folder: string, sql: string): Promise<string[]> {
  const db = await openDuckDb();
  try {
    const text = sql.replace(
      /\{(\w+)\}/g,
      (_, t) => `read_parquet(${sqlString(join(folder, `${t}.parquet`))})`,
    );
    return (await db.connection.runAndReadAll(text)).getRows().map((r) => r.map(String).join(' '));
  } finally {
    db.close();
  }
}

/** Every row of `table` as a line of its compared columns, sorted. */
export function tableRows(folder: string, table: TableName): Promise<string[]> {
  const columns = TABLES[table].map((c) => c.name).filter((c) => !(c in RUN_COLUMNS));
  const line = columns.map((c) => `coalesce(CAST("${c}" AS VARCHAR), '∅')`).join(` || ' | ' || `);
  return queryFolder(folder, `SELECT ${line} FROM {${table}} ORDER BY 1`);
}

/** The names of the published tables. */
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];
