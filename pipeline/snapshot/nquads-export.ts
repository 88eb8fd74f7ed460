import { rm } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from './duckdb-session.ts';
import { ioError } from './durable-fs.ts';
import { nquadsLineSql } from './nquads-sql.ts';
import { gzipFile } from './parallel-gzip.ts';

/** zlib's default: the size of data.nq.gz is part of what people download every week. */
const GZIP_LEVEL = 6;

/**
 * Writes data.nq.gz from the published quads.parquet: the same quads, in the same order, as
 * serializeNQuads writes them. DuckDB builds the lines (nquads-sql.ts) and writes them to `text`, a
 * scratch file, on one thread; they are gzipped on the other threads as they arrive (gzipFile), and
 * the file is removed.
 */
export async function exportNquads(
  connection: DuckDBConnection,
  quadsFile: string,
  target: string,
  text: string,
): Promise<void> {
  // read in file order, so data.nq.gz is sorted like quads.parquet: a publish session lets DuckDB
  // reorder unsorted results, which a parallel scan of the file would do
  await connection.run('SET preserve_insertion_order = true');
  // one unquoted CSV column is the lines as they are, each ended by \n
  const lines = connection.run(`COPY (SELECT ${nquadsLineSql()} FROM read_parquet(${sqlString(quadsFile)}))
    TO ${sqlString(text)} (FORMAT csv, HEADER false, QUOTE '')`);
  try {
    await gzipFile(text, target, GZIP_LEVEL, lines);
  } catch (error) {
    // DuckDB's own failure as it is (storage failures are told apart by the publish)
    await lines;
    throw ioError('write', target, error);
  } finally {
    await rm(text, { force: true });
  }
}
