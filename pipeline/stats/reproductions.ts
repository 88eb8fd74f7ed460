/**
 * The DyLDO paper's crawl figures (Figures 2, 3, 4 and 6, Table 4) regenerated from the published
 * snapshots by DuckDB queries over their documents tables: the portal's Reproductions page and
 * `observatory report` (pipeline/stats/write-report.ts) both show what this computes.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { invalidInput } from '../core/index.ts';
import {
  type CatalogueEntry,
  type ExpansionOfSnapshot,
  parquetFileName,
  queryRows,
  readTableSql,
  SNAPSHOT_SCHEMA_VERSION,
  type SnapshotManifest,
  sqlString,
} from '../snapshot/index.ts';
import { xyChart } from './charts.ts';
import { type ExpansionRun, expansionRuns } from './expansion-runs.ts';
import { latestWeekly, weeklyTrend } from './latest-alias.ts';
import type { Chart, DataTable, Reproduction } from './portal-data.ts';

/** The snapshot kind whose crawls Figures 2 and 3 show when any is published: `observatory expand`'s. */
export const EXPANSION_KIND = 'expand';

/** At most this many crawls in Figures 2 and 3 (a run's first, or the newest of another kind): one line per crawl must stay legible. */
export const MAX_ROUND_CRAWLS = 10;

/** Rows of Table 4. */
const TOP_PLDS = 25;

/**
 * A document that dereferenced to RDF, as the crawl counts it (pipeline/crawl/crawl-stats.ts,
 * `isRdfDocument`): the kernel is made of these.
 */
const RDF_DOCUMENT = 'statements > 0 AND format IS NOT NULL';

/** Which crawls Figures 2 and 3 show. */
export interface RoundsChoice {
  /** The kind of snapshot whose crawls they show (default `expand`). */
  readonly kind?: string;
  /** Weekly snapshots shown instead when none of that kind is published (default 1, the newest). */
  readonly weeklyCrawls?: number;
  /** The expansion run to show (its name, `YYYY-MM-DDTHHMMZ`); default the newest. */
  readonly run?: string;
}

/** The crawls Figures 2 and 3 show, and where they come from. */
export interface RoundCrawls<T> {
  readonly crawls: readonly T[];
  /** True when they are of the chosen kind, false for the weekly fallback. */
  readonly expansion: boolean;
  /** The expansion run they are (at most `MAX_ROUND_CRAWLS` of) when the kind is `expand`. */
  readonly run: ExpansionRun<T> | null;
}

/**
 * The crawls Figures 2 and 3 show. For kind `expand`, the crawls of one expansion run (the newest,
 * or `choice.run`), by their manifests' `expansion`; for another kind, its newest
 * `MAX_ROUND_CRAWLS` snapshots; when none of the kind is published, the newest `weeklyCrawls`
 * weekly snapshots (their rounds are hops from the kernel; any kind when no weekly one is
 * published, as `latestWeekly` does). The portal fetches these snapshots' documents tables for a
 * remote build (fetch-snapshots.ts).
 */
export function roundCrawls<T extends { readonly kind: string; readonly name: string }>(
  catalogue: readonly T[],
  manifest: (entry: T) => { readonly expansion?: ExpansionOfSnapshot },
  choice: RoundsChoice = {},
): RoundCrawls<T> {
  const kind = choice.kind ?? EXPANSION_KIND;
  if (choice.run !== undefined && kind !== EXPANSION_KIND)
    throw invalidInput(
      '--expansion',
      '--rounds-kind expand (the kind whose crawls make runs)',
      `--rounds-kind ${kind}`,
    );
  const ofKind = catalogue.filter((e) => e.kind === kind);
  if (kind === EXPANSION_KIND) {
    const runs = expansionRuns(ofKind, manifest);
    const run = choice.run === undefined ? runs.at(-1) : runs.find((r) => r.name === choice.run);
    if (choice.run !== undefined && !run)
      throw invalidInput(
        '--expansion',
        runs.length > 0
          ? `one of the published expansion runs: ${runs.map((r) => r.name).join(', ')}`
          : 'a published expansion run (none is)',
        choice.run,
      );
    if (run) return { crawls: run.crawls.slice(0, MAX_ROUND_CRAWLS), expansion: true, run };
  } else if (ofKind.length > 0)
    return { crawls: ofKind.slice(-MAX_ROUND_CRAWLS), expansion: true, run: null };
  const weeklyCrawls = choice.weeklyCrawls ?? 1;
  return { crawls: weeklyTrend(catalogue).slice(-Math.max(1, weeklyCrawls)), expansion: false, run: null };
}

/** Which snapshots the figures read, and how. */
export interface ReproductionInput {
  readonly root: string;
  readonly catalogue: readonly CatalogueEntry[];
  /** The manifest of a catalogued snapshot (its schema version decides how its tables are read). */
  readonly manifest: (entry: CatalogueEntry) => SnapshotManifest;
  /** Which crawls Figures 2 and 3 show (default: the newest expansion run). */
  readonly rounds?: RoundsChoice;
}

/**
 * Runs `body` (SQL over a relation named `documents`) against the documents tables of `entries`,
 * each read for its schema version; returns the rows and the query as a researcher runs it on the
 * published files. That query reads them as one `read_parquet` list when all are of the current
 * schema, and else each as the run does (readTableSql: an older folder's columns mapped to the
 * current ones), so that it runs as written on every schema.
 */
async function overDocuments(
  connection: DuckDBConnection,
  input: ReproductionInput,
  entries: readonly CatalogueEntry[],
  body: string,
): Promise<{ rows: unknown[][]; query: string }> {
  const tables = (file: (e: CatalogueEntry) => string) =>
    entries
      .map((e) => {
        const m = input.manifest(e);
        return `(${readTableSql(file(e), 'documents', m.schemaVersion, m)})`;
      })
      .join(' UNION ALL ');
  const local = (e: CatalogueEntry) => join(input.root, e.name, parquetFileName('documents'));
  const published = (e: CatalogueEntry) => `snapshots/${e.name}/${parquetFileName('documents')}`;
  const current = entries.every((e) => input.manifest(e).schemaVersion === SNAPSHOT_SCHEMA_VERSION);
  const shown = current
    ? `read_parquet([${entries.map((e) => sqlString(published(e))).join(', ')}])`
    : tables(published);
  return {
    rows: await queryRows(connection, `WITH documents AS (SELECT * FROM ${tables(local)}) ${body}`),
    query: `WITH documents AS (SELECT * FROM ${shown})\n${body}`,
  };
}

const ROUNDS_SQL = `, rdf AS (SELECT * FROM documents WHERE ${RDF_DOCUMENT}),
  first_seen AS (SELECT snapshot, pld, min(round) AS round FROM rdf GROUP BY snapshot, pld)
SELECT snapshot, round, a.documents, coalesce(r.rdf_documents, 0) AS rdf_documents,
  coalesce(r.statements, 0) AS statements, coalesce(r.plds, 0) AS plds, coalesce(n.new_plds, 0) AS new_plds
FROM (SELECT snapshot, round, count(*) AS documents FROM documents GROUP BY ALL) AS a
LEFT JOIN (SELECT snapshot, round, count(*) AS rdf_documents,
    -- a graph reached through several URLs counts once, for the row that downloaded it
    sum(statements) FILTER (downloaded_by = url) AS statements, count(DISTINCT pld) AS plds
  FROM rdf GROUP BY ALL) AS r USING (snapshot, round)
LEFT JOIN (SELECT snapshot, round, count(*) AS new_plds FROM first_seen GROUP BY ALL) AS n USING (snapshot, round)
ORDER BY snapshot, round`;

const KERNEL = `segment = 'kernel' AND ${RDF_DOCUMENT}`;

const PLD_DISTRIBUTION_SQL = `SELECT documents, count(*) AS plds
FROM (SELECT pld, count(*) AS documents FROM documents WHERE ${KERNEL} GROUP BY pld)
GROUP BY documents ORDER BY documents`;

const TOP_PLDS_SQL = `SELECT pld, count(*) AS documents, count(*) / sum(count(*)) OVER () AS share
FROM documents WHERE ${KERNEL}
GROUP BY pld ORDER BY documents DESC, pld LIMIT ${TOP_PLDS}`;

// every hour from the first to the last, empty ones included: the tail is where hours go quiet
const HOURS_SQL = `, hours AS (SELECT date_diff('second', min(fetched_at) OVER (), fetched_at) // 3600 AS hour,
    ${RDF_DOCUMENT} AS rdf FROM documents)
SELECT h.hour, count(hours.hour) AS documents, count(*) FILTER (hours.rdf) AS rdf_documents
FROM range(0, (SELECT coalesce(max(hour), -1) + 1 FROM hours)) AS h(hour)
LEFT JOIN hours ON hours.hour = h.hour
GROUP BY h.hour ORDER BY h.hour`;

/** The crawl figures, from the published snapshots (none when nothing is published). */
export async function computeReproductions(
  connection: DuckDBConnection,
  input: ReproductionInput,
): Promise<Reproduction[]> {
  if (input.catalogue.length === 0) return [];
  const chosen = roundCrawls(input.catalogue, input.manifest, input.rounds);
  const newest = latestWeekly(input.catalogue);
  const rounds = await overDocuments(connection, input, chosen.crawls, ROUNDS_SQL);
  return [
    ...(await roundFigures(rounds, chosen, input.rounds?.kind ?? EXPANSION_KIND)),
    await pldDistribution(await overDocuments(connection, input, [newest], PLD_DISTRIBUTION_SQL), newest),
    topPlds(await overDocuments(connection, input, [newest], TOP_PLDS_SQL), newest),
    await crawlHours(await overDocuments(connection, input, [newest], HOURS_SQL), newest),
  ];
}

const num = (v: unknown) => Number(v);

/** A figure drawn as a chart: its title, summary and data are the chart's. */
function drawn(paper: string, chart: Chart, differences: string, query: string): Reproduction {
  const { title, summary, table } = chart;
  return { id: chart.id, paper, title, summary, chart, table, differences, query };
}
const names = (entries: readonly CatalogueEntry[]) => entries.map((e) => e.name).join(', ');

/** Which crawls of an expansion run are shown, of those published and those it was asked for. */
function expansionCrawls(run: ExpansionRun<CatalogueEntry>, shown: number): string {
  const published = run.crawls.length;
  const all = run.of === 1 ? 'the one crawl' : `the ${run.of} crawls`;
  const crawls = published === run.of ? all : `the ${published} published of ${all}`;
  return `${shown < published ? `the first ${shown} of ` : ''}${crawls} of expansion run ${run.name}`;
}

/** Figures 2 and 3: per crawl and round, documents and statements; PLDs and new PLDs. */
async function roundFigures(
  result: { rows: unknown[][]; query: string },
  { crawls, expansion, run }: RoundCrawls<CatalogueEntry>,
  kind: string,
): Promise<Reproduction[]> {
  const rows = result.rows.map(([snapshot, round, documents, rdf, statements, plds, newPlds]) => ({
    crawl: String(snapshot),
    round: num(round),
    documents: num(documents),
    rdf: num(rdf),
    statements: num(statements),
    plds: num(plds),
    newPlds: num(newPlds),
  }));
  const which = run
    ? `${expansionCrawls(run, crawls.length)} (${names(crawls)}); round 0 holds the seeds`
    : expansion
      ? `${crawls.length === 1 ? 'the newest crawl' : `the ${crawls.length} newest crawls`} published as snapshots of kind ${kind} (${names(crawls)}); round 0 holds the seeds`
      : `no crawl of kind ${kind} is published, so the newest weekly snapshot${crawls.length > 1 ? 's' : ''} (${names(crawls)}) instead: ${crawls.length > 1 ? 'their' : 'its'} rounds are hops from the kernel (round 0 is the kernel), not an expansion's rounds from the core seeds`;
  const setup = expansion
    ? "Our rounds end by this crawler's round-end rule (docs/crawling.md), not LDSpider's, and the crawls are of whatever Web was crawled (in the demo and tests the simulated one), from this observatory's core seeds, not the paper's crawls of the real Web."
    : 'The paper plots its expansion crawls (as we read it); a weekly crawl also never ends a round early, so its rounds are exactly its hops.';
  const panel = (
    id: string,
    title: string,
    summary: string,
    measures: ReadonlyArray<readonly [string, (r: (typeof rows)[number]) => number]>,
  ) =>
    xyChart(
      { id, title, summary, xTitle: 'round', yTitle: 'count' },
      rows.flatMap((r) =>
        measures.map(([name, value]) => ({ x: r.round, y: value(r), series: r.crawl, panel: name })),
      ),
      {
        columns: ['crawl', 'round', ...measures.map(([name]) => name)],
        rows: rows.map((r) => [r.crawl, r.round, ...measures.map(([, value]) => value(r))]),
      },
    );
  return [
    drawn(
      'DyLDO paper, Figure 2',
      await panel(
        'dyldo-figure-2',
        'Documents and statements per round',
        `Per crawl and round: documents attempted, documents that dereferenced to RDF, and their statements (a graph reached through several URLs counted once). Crawls: ${which}.`,
        [
          ['documents', (r) => r.documents],
          ['RDF documents', (r) => r.rdf],
          ['statements', (r) => r.statements],
        ],
      ),
      setup,
      result.query,
    ),
    drawn(
      'DyLDO paper, Figure 3',
      await panel(
        'dyldo-figure-3',
        'PLDs and new PLDs per round',
        `Per crawl and round: pay-level domains with an RDF document in the round, and those with none in an earlier round of the same crawl. Crawls: ${which}.`,
        [
          ['PLDs', (r) => r.plds],
          ['new PLDs', (r) => r.newPlds],
        ],
      ),
      setup,
      result.query,
    ),
  ];
}

const KERNEL_SETUP =
  "The kernel here is the newest weekly snapshot's kernel documents that dereferenced to RDF, which changes week by week, not the kernel list as first expanded; its size is this observatory's, not the paper's 95,737 URIs on 652 PLDs.";

/** Figure 4: kernel documents per PLD, as a distribution on log-log axes. */
async function pldDistribution(
  result: { rows: unknown[][]; query: string },
  newest: CatalogueEntry,
): Promise<Reproduction> {
  const rows = result.rows.map(([documents, plds]) => [num(documents), num(plds)] as const);
  const table: DataTable = { columns: ['documents on the PLD', 'PLDs'], rows };
  return drawn(
    'DyLDO paper, Figure 4',
    await xyChart(
      {
        id: 'dyldo-figure-4',
        title: 'Kernel documents per PLD (log-log)',
        summary: `How many pay-level domains have how many kernel documents, both axes logarithmic, in ${newest.name}.`,
        xTitle: 'kernel documents on the PLD',
        yTitle: 'PLDs',
        logLog: true,
      },
      rows.map(([x, y]) => ({ x, y, series: newest.name })),
      table,
    ),
    `${KERNEL_SETUP} As we read the paper's figure, it plots the same distribution (PLDs by their number of kernel documents).`,
    result.query,
  );
}

/** Table 4: the PLDs with the most kernel documents and their share of the kernel. */
function topPlds(result: { rows: unknown[][]; query: string }, newest: CatalogueEntry): Reproduction {
  return {
    id: 'dyldo-table-4',
    paper: 'DyLDO paper, Table 4',
    chart: null,
    title: `Top ${TOP_PLDS} PLDs of the kernel`,
    summary: `Pay-level domains by their kernel documents in ${newest.name}, with their share of the kernel.`,
    table: {
      columns: ['PLD', 'kernel documents', 'share of the kernel'],
      rows: result.rows.map(([pld, documents, share]) => [
        String(pld),
        num(documents),
        `${(100 * num(share)).toFixed(1)}%`,
      ]),
    },
    differences: KERNEL_SETUP,
    query: result.query,
  };
}

/** Hours the crawl must span before Figure 6 can show a tail at all. */
const TAIL_HOURS = 3;

/**
 * What Figure 6's hours show, in words: the paper's long tail (the crawl waiting on the politeness
 * delay of the few PLDs left) only where the later half of the hours fetched a small share of the
 * documents; a crawl of a small Web, over within an hour or two, says so instead of claiming one.
 */
export function hoursShape(rows: readonly (readonly [number, number, number])[]): string {
  const total = rows.reduce((sum, [, documents]) => sum + documents, 0);
  if (rows.length < TAIL_HOURS)
    return `the whole crawl finished within its first ${rows.length === 1 ? 'hour' : `${rows.length} hours`}, too short to show the paper's long tail (the crawl waiting on the politeness delay of the few PLDs left)`;
  const later = rows.slice(Math.ceil(rows.length / 2));
  const share = later.reduce((sum, [, documents]) => sum + documents, 0) / Math.max(1, total);
  const percent = `${(100 * share).toFixed(0)}%`;
  const last = `its last ${later.length === 1 ? 'hour' : `${later.length} hours`} of ${rows.length}`;
  return share <= 0.25
    ? `${last} fetched ${percent} of the documents: the long tail of the crawl waiting on the politeness delay of the few PLDs left`
    : `${last} still fetched ${percent} of the documents: no long tail of a few PLDs left`;
}

/** Figure 6: documents per hour of the crawl, which shows the tail where few PLDs are left. */
async function crawlHours(
  result: { rows: unknown[][]; query: string },
  newest: CatalogueEntry,
): Promise<Reproduction> {
  const rows = result.rows.map(([hour, documents, rdf]) => [num(hour), num(documents), num(rdf)] as const);
  return drawn(
    'DyLDO paper, Figure 6',
    await xyChart(
      {
        id: 'dyldo-figure-6',
        title: 'Documents per crawl hour',
        summary: `Documents whose fetch finished in each hour since the first one of ${newest.name} (kernel and adaptive segments), and those that dereferenced to RDF; ${hoursShape(rows)}.`,
        xTitle: 'hour of the crawl',
        yTitle: 'documents',
      },
      rows.flatMap(([x, documents, rdf]) => [
        { x, y: documents, series: 'documents' },
        { x, y: rdf, series: 'RDF documents' },
      ]),
      { columns: ['hour', 'documents', 'RDF documents'], rows },
    ),
    "This is the newest weekly snapshot's crawl with this crawler's politeness and fetch slots (docs/crawling.md), not the paper's LDSpider crawl of the real Web; hours count from the first finished fetch (fetched_at), and a small or simulated Web may fit in the first hour.",
    result.query,
  );
}
