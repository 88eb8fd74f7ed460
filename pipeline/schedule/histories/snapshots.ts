import { ObservatoryError } from '../../core/index.ts';
import { openDuckDb } from '../../snapshot/index.ts';
import { changeHistory } from './change-history.ts';
import type { ChangeHistory } from './types.ts';

/**
 * Change histories from the observatory's own snapshots (documents.parquet of any schema version:
 * url, fetched_at, graph_hash VARCHAR). Each url's first observation is its baseline; an observation is
 * a change when its graph_hash differs from that url's previous observation, and the change is
 * dated at that observation (the true time is unknown). Rows without a graph_hash (failed
 * fetches) are not observations of content and are left out. `source` is a Parquet file or glob.
 */
export async function snapshotHistories(source: string): Promise<ChangeHistory[]> {
  // a glob may mix schema versions (fetched_at TIMESTAMP in 1, TIMESTAMPTZ in 2): the session reads both as UTC
  const { connection, close } = await openDuckDb();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT url, epoch_ms(min(fetched_at)) AS first, epoch_ms(max(fetched_at)) AS last,
              list(epoch_ms(fetched_at) ORDER BY fetched_at) FILTER (WHERE changed) AS changes
       FROM (SELECT url, fetched_at,
                    graph_hash IS DISTINCT FROM lag(graph_hash) OVER (PARTITION BY url ORDER BY fetched_at)
                      AND lag(graph_hash) OVER (PARTITION BY url ORDER BY fetched_at) IS NOT NULL AS changed
             FROM read_parquet($source) WHERE graph_hash IS NOT NULL)
       GROUP BY url ORDER BY url`,
      { source },
    );
    return reader.getRowObjectsJS().map((row) => {
      const changes = ((row.changes as (bigint | number)[] | null) ?? []).map(Number);
      return changeHistory(String(row.url), Number(row.first), Number(row.last), changes);
    });
  } catch (error) {
    throw new ObservatoryError(
      'invalid_input',
      `${source}: expected documents.parquet with columns url, fetched_at (TIMESTAMPTZ, or TIMESTAMP in UTC), graph_hash (VARCHAR): ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  } finally {
    close();
  }
}
