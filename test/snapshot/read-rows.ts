import { openDuckDb, queryRows } from '../../pipeline/snapshot/index.ts';

/** All rows of one query on a fresh in-memory DuckDB, BIGINTs as numbers so rows deepEqual plain literals. */
export async function readRows(sql: string): Promise<unknown[][]> {
  const session = await openDuckDb();
  try {
    return (await queryRows(session.connection, sql)).map((r) =>
      r.map((v) => (typeof v === 'bigint' ? Number(v) : v)),
    );
  } finally {
    session.close();
  }
}
