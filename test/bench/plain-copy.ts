import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openDuckDb, sqlString } from '../../pipeline/snapshot/duckdb-session.ts';

/**
 * What a publish is measured against: seconds DuckDB takes to COPY the rows of a published
 * quads.parquet (read into a table first, not timed) to a zstd Parquet file, under the same memory
 * limit as a publish. `scratch` holds its database and output, removed after.
 */
export async function plainCopySeconds(quadsFile: string, scratch: string): Promise<number> {
  const database = join(scratch, 'copy.duckdb');
  await rm(database, { force: true });
  const session = await openDuckDb({ path: database, tempDirectory: join(scratch, 'copy.tmp') });
  try {
    await session.connection.run(`CREATE TABLE q AS SELECT * FROM read_parquet(${sqlString(quadsFile)})`);
    const t0 = performance.now();
    await session.connection.run(
      `COPY q TO ${sqlString(join(scratch, 'copy.parquet'))} (FORMAT parquet, COMPRESSION zstd)`,
    );
    return (performance.now() - t0) / 1000;
  } finally {
    session.close();
    for (const file of [
      database,
      `${database}.wal`,
      join(scratch, 'copy.tmp'),
      join(scratch, 'copy.parquet'),
    ])
      await rm(file, { recursive: true, force: true });
  }
}
