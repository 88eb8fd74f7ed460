import type { DuckDBConnection } from '@duckdb/node-api';
import { type ChangedGaps, type ChangeRateEstimate, estimateChangeRate } from './change-rates.ts';
import type { DataTable } from './portal-data.ts';

/** Figures across all snapshots, from the small tables (documents, changes) and the example queries. */
export interface History {
  /** Kernel documents by their estimated changes a week (change-rates.ts). */
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

/** Two significant digits at most, for rates that span orders of magnitude. */
const round2 = (x: number) => (x === 0 || !Number.isFinite(x) ? x : Number(x.toPrecision(2)));

interface DocumentRate {
  readonly url: string;
  readonly kernel: boolean;
  readonly comparisons: number;
  readonly changes: number;
  readonly estimate: ChangeRateEstimate;
}

/** Every document with a comparison, with its change rate per unit of time estimated from the totals. */
async function documentRates(connection: DuckDBConnection): Promise<DocumentRate[]> {
  const rows = numbers(
    (
      await connection.runAndReadAll(
        `SELECT d.url, d.kernel, d.comparisons, d.changes, d.unchanged_seconds, g.changes, g.seconds
         FROM h_documents AS d LEFT JOIN h_change_gaps AS g USING (url) WHERE d.comparisons > 0
         ORDER BY d.url, g.bucket`,
      )
    ).getRows(),
  );
  const out: DocumentRate[] = [];
  for (let i = 0; i < rows.length; ) {
    const [url, kernel, comparisons, changes, unchanged] = rows[i];
    const gaps: ChangedGaps[] = [];
    for (; i < rows.length && rows[i][0] === url; i++)
      if (rows[i][5] !== null) gaps.push({ changes: Number(rows[i][5]), seconds: Number(rows[i][6]) });
    out.push({
      url: String(url),
      kernel: Boolean(kernel),
      comparisons: Number(comparisons),
      changes: Number(changes),
      estimate: estimateChangeRate(Number(comparisons), gaps, Number(unchanged)),
    });
  }
  return out;
}

/**
 * Buckets of estimated changes a week, each label stating its edges (a month is 30.44 days) in at
 * most 16 characters, what a phone's chart shows uncut (charts.ts).
 */
const FREQUENCY_BUCKETS: ReadonlyArray<readonly [string, number]> = [
  ['under 1/month', 7 / 30.44],
  ['1/month to <1/wk', 1],
  ['1/wk to <1/day', 7],
  ['1/day or more', Number.POSITIVE_INFINITY],
];

/** Documents by estimated changes a week; those without a change seen apart, whatever their observed time. */
function frequencyTable(documents: readonly DocumentRate[]): DataTable {
  const counts = new Map<string, number>();
  for (const d of documents) {
    const label =
      d.changes === 0
        ? 'no change seen'
        : (FREQUENCY_BUCKETS.find(([, below]) => d.estimate.perWeek < below)?.[0] ?? '');
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const order = ['no change seen', ...FREQUENCY_BUCKETS.map(([label]) => label)];
  return asTable(
    ['changes a week (estimated)', 'kernel documents'],
    order.filter((label) => counts.has(label)).map((label) => [label, counts.get(label)]),
  );
}

/**
 * PLDs with enough comparisons, ranked by the mean estimated changes a week of their documents
 * (each document weighs the same, however often it was visited); the share of comparisons that
 * found a change is the example query's figure, kept beside it.
 */
function pldTables(rows: unknown[][], perWeek: ReadonlyMap<string, number>) {
  const plds = new Map<
    string,
    { documents: number; comparisons: number; changes: number; share: unknown; sum: number; rated: number }
  >();
  for (const [pld, url, comparisons, changes, share] of rows) {
    const p = plds.get(String(pld)) ?? { documents: 0, comparisons: 0, changes: 0, share, sum: 0, rated: 0 };
    plds.set(String(pld), p);
    p.documents++;
    p.comparisons += Number(comparisons);
    p.changes += Number(changes);
    const rate = perWeek.get(String(url));
    if (rate !== undefined) {
      p.sum += rate;
      p.rated++;
    }
  }
  const ranked = [...plds]
    .filter(([, p]) => p.comparisons >= MIN_COMPARISONS && p.rated > 0)
    .map(
      ([pld, p]) => [pld, p.documents, p.comparisons, p.changes, p.share, round2(p.sum / p.rated)] as const,
    );
  const table = (order: 1 | -1) =>
    asTable(
      ['PLD', 'documents', 'comparisons', 'changes', 'change rate', 'changes a week (mean)'],
      [...ranked]
        .sort((a, b) => order * (b[5] - a[5]) || b[2] - a[2] || (a[0] < b[0] ? -1 : 1))
        .slice(0, TOP)
        .map((r) => [...r]),
    );
  return { mostDynamicPlds: table(1), leastDynamicPlds: table(-1) };
}

/**
 * The cross-snapshot figures, from the running totals `loadHistoryState` created in `connection`.
 * Each query asks what the example query of docs/queries named beside it asks of all snapshots'
 * Parquet (test/stats/history.test.ts checks that they agree), but over totals per document and PLD.
 */
export async function queryHistory(connection: DuckDBConnection): Promise<History> {
  const rate = (part: string, whole: string) => `round(${part} / nullif(${whole}, 0), 3)`;
  const run = async (sql: string) => numbers((await connection.runAndReadAll(sql)).getRows());
  // lifespan-availability.sql
  const lifespans = `(SELECT first_seen, last_seen, ${rate('available', 'attempts')} AS availability
    FROM h_documents WHERE attempts > 0)`;
  const availability = await run(
    `SELECT CASE WHEN availability = 0 THEN 'never' WHEN availability < 0.5 THEN 'over 0, <50%'
       WHEN availability < 0.9 THEN '50% to <90%' WHEN availability < 1 THEN '90% to <100%' ELSE 'always' END,
       count(*), min(availability) FROM ${lifespans} GROUP BY 1 ORDER BY 3`,
  );
  const lifespan = await run(
    `SELECT ${LIFESPAN_BUCKET}, count(*), min(d)
     FROM (SELECT date_diff('second', first_seen, last_seen) / 86400 AS d FROM ${lifespans}) GROUP BY 1 ORDER BY 3`,
  );
  const fresh = await run('SELECT first_snapshot, count(*) FROM h_pld_first GROUP BY 1');
  const documents = await documentRates(connection);
  // change-frequency-per-pld.sql's change_rate beside each of the PLD's documents
  const plds = await run(
    `SELECT pld, url, comparisons, changes, ${rate('sum(changes) OVER (PARTITION BY pld)', 'sum(comparisons) OVER (PARTITION BY pld)')}
     FROM h_pld_documents ORDER BY pld, url`,
  );
  return {
    changeFrequency: frequencyTable(documents.filter((d) => d.kernel)),
    availability: asTable(
      ['availability', 'documents'],
      availability.map((r) => r.slice(0, 2)),
    ),
    lifespan: asTable(
      ['observed for', 'documents'],
      lifespan.map((r) => r.slice(0, 2)),
    ),
    ...pldTables(plds, new Map(documents.map((d) => [d.url, d.estimate.perWeek]))),
    mostDynamicDocuments: asTable(
      ['document', 'comparisons', 'changes', 'observed days', 'changes a week', '95% interval'],
      documents
        .filter((d) => d.changes > 0)
        .sort((a, b) => b.estimate.perWeek - a.estimate.perWeek || (a.url < b.url ? -1 : 1))
        .slice(0, TOP)
        .map((d) => [
          d.url,
          d.comparisons,
          d.changes,
          Math.round(d.estimate.observedDays),
          round2(d.estimate.perWeek),
          `${round2(d.estimate.low)} to ${round2(d.estimate.high)}`,
        ]),
    ),
    newPlds: new Map(fresh.map(([name, n]) => [String(name), Number(n)])),
  };
}
