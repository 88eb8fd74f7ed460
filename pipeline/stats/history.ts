import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../snapshot/index.ts';
import { runExampleQuery } from './doc-queries.ts';
import type { DataTable } from './portal-data.ts';

/** Figures across all snapshots, from the small tables (documents, changes) and the example queries. */
export interface History {
  /** Kernel documents by share of comparisons that found a change. */
  readonly changeFrequency: DataTable;
  /** Documents by share of attempts that returned RDF. */
  readonly availability: DataTable;
  /** Documents by days between first and last observation. */
  readonly lifespan: DataTable;
  readonly mostDynamicPlds: DataTable;
  readonly leastDynamicPlds: DataTable;
  readonly mostDynamicDocuments: DataTable;
  /** Snapshot name -> PLDs first seen in it. */
  readonly newPlds: ReadonlyMap<string, number>;
}

/**
 * Lifespan buckets over `d`, days between a document's first and last observation. Every label
 * states its edges as the CASE applies them (28 days is four weeks, not "1-6 months").
 */
export const LIFESPAN_BUCKET = `CASE WHEN d < 1 THEN 'under 1 day' WHEN d < 7 THEN '1 day to <1 week'
  WHEN d < 28 THEN '1 to <4 weeks' WHEN d < 182 THEN '4 to <26 weeks' ELSE '26 weeks or more' END`;

const TOP = 15;
/** A PLD needs this many comparisons before it is ranked as most or least dynamic. */
const MIN_COMPARISONS = 3;

const asTable = (columns: string[], rows: unknown[][]): DataTable => ({
  columns,
  rows: rows.map((r) =>
    r.map((v) => (v === null || typeof v === 'number' ? v : String(v))),
  ) as DataTable['rows'],
});

const numbers = (rows: unknown[][]): unknown[][] =>
  rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)));

/** Runs the cross-snapshot queries over the published snapshots `names` (oldest first) of `root`. */
export async function queryHistory(
  connection: DuckDBConnection,
  root: string,
  names: readonly string[],
): Promise<History> {
  const list = (file: string) => `[${names.map((n) => sqlString(join(root, n, file))).join(', ')}]`;
  const documents = `read_parquet(${list('documents.parquet')})`;
  const run = async (file: string, wrap: string) =>
    numbers(await runExampleQuery(connection, file, root, names, wrap));
  const frequency = await run(
    'change-frequency-per-document.sql',
    `SELECT CASE WHEN change_rate = 0 THEN 'never' WHEN change_rate <= 0.1 THEN 'over 0 to 10%'
       WHEN change_rate <= 0.25 THEN 'over 10 to 25%' WHEN change_rate <= 0.5 THEN 'over 25 to 50%'
       WHEN change_rate < 1 THEN 'over 50%, <100%' ELSE 'every time' END AS bucket, count(*) AS documents, min(change_rate)
     FROM q WHERE comparisons > 0 AND url IN (SELECT url FROM ${documents} WHERE segment = 'kernel')
     GROUP BY 1 ORDER BY 3`,
  );
  const availability = await run(
    'lifespan-availability.sql',
    `SELECT CASE WHEN availability = 0 THEN 'never' WHEN availability < 0.5 THEN 'over 0, <50%'
       WHEN availability < 0.9 THEN '50% to <90%' WHEN availability < 1 THEN '90% to <100%' ELSE 'always' END,
       count(*), min(availability) FROM q GROUP BY 1 ORDER BY 3`,
  );
  const lifespan = await run(
    'lifespan-availability.sql',
    `SELECT ${LIFESPAN_BUCKET}, count(*), min(d)
     FROM (SELECT date_diff('second', first_seen, last_seen) / 86400 AS d FROM q) GROUP BY 1 ORDER BY 3`,
  );
  const pldQuery = (order: string) =>
    run(
      'change-frequency-per-pld.sql',
      `SELECT pld, documents, comparisons, changes, change_rate FROM q WHERE comparisons >= ${MIN_COMPARISONS}
       ORDER BY change_rate ${order}, comparisons DESC, pld LIMIT ${TOP}`,
    );
  const documentsTop = await run(
    'change-frequency-per-document.sql',
    `SELECT url, comparisons, changes, change_rate FROM q WHERE changes > 0 LIMIT ${TOP}`,
  );
  const fresh = numbers(
    (
      await connection.runAndReadAll(
        `SELECT first, count(*) FROM (SELECT pld, arg_min(snapshot, fetched_at) AS first FROM ${documents}
         GROUP BY pld) GROUP BY 1`,
      )
    ).getRows(),
  );
  const pldColumns = ['PLD', 'documents', 'comparisons', 'changes', 'change rate'];
  return {
    changeFrequency: asTable(
      ['change rate', 'kernel documents'],
      frequency.map((r) => r.slice(0, 2)),
    ),
    availability: asTable(
      ['availability', 'documents'],
      availability.map((r) => r.slice(0, 2)),
    ),
    lifespan: asTable(
      ['observed for', 'documents'],
      lifespan.map((r) => r.slice(0, 2)),
    ),
    mostDynamicPlds: asTable(pldColumns, await pldQuery('DESC')),
    leastDynamicPlds: asTable(pldColumns, await pldQuery('ASC')),
    mostDynamicDocuments: asTable(['document', 'comparisons', 'changes', 'change rate'], documentsTop),
    newPlds: new Map(fresh.map(([name, n]) => [String(name), Number(n)])),
  };
}
