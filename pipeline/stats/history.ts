import type { DuckDBConnection } from '@duckdb/node-api';
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

/**
 * The cross-snapshot figures, from the running totals `loadHistoryState` created in `connection`.
 * Each query asks what the example query of docs/queries named beside it asks of all snapshots'
 * Parquet (test/stats/history.test.ts checks that they agree), but over totals per document and PLD.
 */
export async function queryHistory(connection: DuckDBConnection): Promise<History> {
  const rate = (part: string, whole: string) => `round(${part} / nullif(${whole}, 0), 3)`;
  const run = async (sql: string) => numbers((await connection.runAndReadAll(sql)).getRows());
  // change-frequency-per-document.sql
  const perDocument = `(SELECT url, comparisons, changes, kernel, ${rate('changes', 'comparisons')} AS change_rate
    FROM h_documents WHERE observations > 0)`;
  // lifespan-availability.sql
  const lifespans = `(SELECT first_seen, last_seen, ${rate('available', 'attempts')} AS availability
    FROM h_documents WHERE attempts > 0)`;
  // change-frequency-per-pld.sql
  const perPld = `(SELECT pld, count(*) AS documents, sum(comparisons)::BIGINT AS comparisons,
    sum(changes)::BIGINT AS changes, ${rate('sum(changes)', 'sum(comparisons)')} AS change_rate
    FROM h_pld_documents GROUP BY pld)`;
  const frequency = await run(
    `SELECT CASE WHEN change_rate = 0 THEN 'never' WHEN change_rate <= 0.1 THEN 'over 0 to 10%'
       WHEN change_rate <= 0.25 THEN 'over 10 to 25%' WHEN change_rate <= 0.5 THEN 'over 25 to 50%'
       WHEN change_rate < 1 THEN 'over 50%, <100%' ELSE 'every time' END AS bucket, count(*) AS documents, min(change_rate)
     FROM ${perDocument} WHERE comparisons > 0 AND kernel GROUP BY 1 ORDER BY 3`,
  );
  const availability = await run(
    `SELECT CASE WHEN availability = 0 THEN 'never' WHEN availability < 0.5 THEN 'over 0, <50%'
       WHEN availability < 0.9 THEN '50% to <90%' WHEN availability < 1 THEN '90% to <100%' ELSE 'always' END,
       count(*), min(availability) FROM ${lifespans} GROUP BY 1 ORDER BY 3`,
  );
  const lifespan = await run(
    `SELECT ${LIFESPAN_BUCKET}, count(*), min(d)
     FROM (SELECT date_diff('second', first_seen, last_seen) / 86400 AS d FROM ${lifespans}) GROUP BY 1 ORDER BY 3`,
  );
  const pldQuery = (order: string) =>
    run(
      `SELECT pld, documents, comparisons, changes, change_rate FROM ${perPld} WHERE comparisons >= ${MIN_COMPARISONS}
       ORDER BY change_rate ${order}, comparisons DESC, pld LIMIT ${TOP}`,
    );
  const documentsTop = await run(
    `SELECT url, comparisons, changes, change_rate FROM ${perDocument} WHERE changes > 0
     ORDER BY change_rate DESC NULLS LAST, url LIMIT ${TOP}`,
  );
  const fresh = await run('SELECT first_snapshot, count(*) FROM h_pld_first GROUP BY 1');
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
