import type { DuckDBConnection } from '@duckdb/node-api';
import { type ChangedGaps, type ChangeRateEstimate, estimateChangeRate } from './change-rates.ts';
import type { DataTable } from './portal-data.ts';

/** Figures across all snapshots, from the small tables (documents, changes) and the example queries. */
export interface HistoryFigures {
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
  readonly comparisons: number;
  readonly changes: number;
  readonly estimate: ChangeRateEstimate;
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
const NO_CHANGE = 'no change seen';

/** What the documents' estimates add up to, kept while they stream by. */
interface RateFigures {
  /** Kernel documents per frequency bucket. */
  readonly frequency: Map<string, number>;
  /** The TOP documents with a change, by estimated rate (then URL). */
  readonly top: DocumentRate[];
  /** Per PLD, the sum of its documents' estimated changes a week, and how many documents. */
  readonly plds: Map<string, { sum: number; rated: number }>;
}

const byRate = (a: DocumentRate, b: DocumentRate) =>
  b.estimate.perWeek - a.estimate.perWeek || (a.url < b.url ? -1 : 1);

/**
 * Every document with a comparison, its change rate per unit of time estimated from the totals
 * (change-rates.ts) and folded into RateFigures as the rows stream from DuckDB: a history holds a
 * row per document ever seen, so neither the rows nor the estimates are held all at once.
 */
async function rateFigures(connection: DuckDBConnection): Promise<RateFigures> {
  const figures: RateFigures = { frequency: new Map(), top: [], plds: new Map() };
  const add = (row: unknown[], gaps: ChangedGaps[]) => {
    const [url, kernel, pld, comparisons, changes, unchanged] = row;
    const d: DocumentRate = {
      url: String(url),
      comparisons: Number(comparisons),
      changes: Number(changes),
      estimate: estimateChangeRate(Number(comparisons), gaps, Number(unchanged)),
    };
    if (kernel) {
      const label =
        d.changes === 0
          ? NO_CHANGE
          : (FREQUENCY_BUCKETS.find(([, below]) => d.estimate.perWeek < below)?.[0] ?? '');
      figures.frequency.set(label, (figures.frequency.get(label) ?? 0) + 1);
    }
    if (d.changes > 0 && (figures.top.length < TOP || byRate(d, figures.top[TOP - 1]) < 0)) {
      figures.top.push(d);
      figures.top.sort(byRate);
      figures.top.length = Math.min(figures.top.length, TOP);
    }
    if (pld !== null) {
      const p = figures.plds.get(String(pld)) ?? { sum: 0, rated: 0 };
      figures.plds.set(String(pld), { sum: p.sum + d.estimate.perWeek, rated: p.rated + 1 });
    }
  };
  const result = await connection.stream(
    `SELECT d.url, d.kernel, p.pld, d.comparisons, d.changes, d.unchanged_seconds, g.changes, g.seconds
     FROM h_documents AS d LEFT JOIN h_change_gaps AS g USING (url)
       LEFT JOIN (SELECT url, min(pld) AS pld FROM h_pld_documents GROUP BY url) AS p USING (url)
     WHERE d.comparisons > 0 ORDER BY d.url, g.bucket`,
  );
  // a document's rows (one per gap bucket) are consecutive, and may span two chunks
  let current: unknown[] | null = null;
  let gaps: ChangedGaps[] = [];
  for await (const rows of result.yieldRows()) {
    for (const row of numbers(rows)) {
      if (current !== null && row[0] !== current[0]) {
        add(current, gaps);
        gaps = [];
      }
      current = row;
      if (row[6] !== null) gaps.push({ changes: Number(row[6]), seconds: Number(row[7]) });
    }
  }
  if (current !== null) add(current, gaps);
  return figures;
}

/**
 * PLDs with enough comparisons, ranked by the mean estimated changes a week of their documents
 * (each document weighs the same, however often it was visited); the share of comparisons that
 * found a change is the example query's figure (`perPld`, one row per PLD), kept beside it.
 */
function pldTables(perPld: unknown[][], rates: RateFigures['plds']) {
  const ranked = perPld.flatMap(([pld, documents, comparisons, changes, share]) => {
    const rate = rates.get(String(pld));
    return Number(comparisons) >= MIN_COMPARISONS && rate
      ? [
          [
            String(pld),
            documents,
            Number(comparisons),
            changes,
            share,
            round2(rate.sum / rate.rated),
          ] as const,
        ]
      : [];
  });
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
export async function queryHistory(connection: DuckDBConnection): Promise<HistoryFigures> {
  const rate = (part: string, whole: string) => `round(${part} / nullif(${whole}, 0), 3)`;
  const run = async (sql: string) => numbers((await connection.runAndReadAll(sql)).getRows());
  // lifespan-availability.sql
  // the share unrounded: rounded, one failure in 2,000 attempts read as "always" (docs/audit.md)
  const lifespans = `(SELECT first_seen, last_seen, available / attempts AS availability
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
  const rates = await rateFigures(connection);
  // change-frequency-per-pld.sql
  const perPld = await run(
    `SELECT pld, count(*), sum(comparisons)::BIGINT AS comparisons, sum(changes)::BIGINT,
       ${rate('sum(changes)', 'sum(comparisons)')} FROM h_pld_documents GROUP BY pld`,
  );
  const order = [NO_CHANGE, ...FREQUENCY_BUCKETS.map(([label]) => label)];
  return {
    changeFrequency: asTable(
      ['changes a week (estimated)', 'kernel documents'],
      order.filter((label) => rates.frequency.has(label)).map((label) => [label, rates.frequency.get(label)]),
    ),
    availability: asTable(
      ['availability', 'documents'],
      availability.map((r) => r.slice(0, 2)),
    ),
    lifespan: asTable(
      ['observed for', 'documents'],
      lifespan.map((r) => r.slice(0, 2)),
    ),
    ...pldTables(perPld, rates.plds),
    mostDynamicDocuments: asTable(
      ['document', 'comparisons', 'changes', 'observed days', 'changes a week', '95% interval'],
      rates.top.map((d) => [
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
