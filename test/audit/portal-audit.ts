/**
 * Holds the portal's data (portal.json, what every page renders) against the independent figures:
 * a generic walk over the data in which every leaf must fall under an entry of FIGURES, either
 * checked (its independent value compared) or listed with the reason it has no independent check.
 * A figure added to the portal later without an entry here is reported as unaudited, which fails
 * the test (docs/audit.md).
 */
import type { PortalData } from '../../pipeline/stats/portal-data.ts';
import {
  availabilityDistribution,
  changeFrequency,
  DEGREE_BUCKETS,
  dynamicDocuments,
  dynamicPlds,
  FREQUENCY_BUCKETS,
  fileFacts,
  kernelRdfPerPld,
  type LevelFigure,
  lifespan,
  type Row,
  rateOf,
  round2,
  roundFigures,
  type SnapshotTruth,
  type Truth,
  top,
  vocabularies,
} from './independent-figures.ts';
import { statementsOf } from './observations.ts';

/** Where a node lies: the ids of the array elements on its path (snapshot name, PLD, chart or figure id). */
type Scope = Readonly<Record<string, string>>;

/** How the portal's value and the independent one are compared. */
type Agreement = (portal: unknown, independent: unknown) => boolean;

interface Checked {
  readonly figure: string;
  /** The independent value of the node at `scope` (the portal's node given for its shape only). */
  readonly truth: (t: AuditInput, scope: Scope) => unknown | Promise<unknown>;
  readonly agree?: Agreement;
  /** Parts of the node (patterns relative to it) left out of the comparison, with the reason. */
  readonly unaudited?: Readonly<Record<string, string>>;
}

interface Listed {
  readonly figure: string;
  readonly reason: string;
  /** Applies only where the node is a leaf (a null in place of an object). */
  readonly leafOnly?: true;
}

type Entry = Checked | Listed;

/** What the checks read: the independent figures and where the published files lie. */
export interface AuditInput {
  readonly truth: Truth;
  readonly root: string;
  readonly data: PortalData;
}

// --- comparisons ------------------------------------------------------------------------------------

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** A crawl's start as the crawl's clock stated it: within a minute of the virtual moment the Web stood at. */
const MINUTE = 60_000;
const nearTime = (portal: unknown, at: unknown) =>
  typeof portal === 'string' && Math.abs(Date.parse(portal) - Date.parse(String(at))) < MINUTE;

/** Tables whose first column is a snapshot's start: that column within a minute, the rest exact. */
const timeTable: Agreement = (portal, truth) => {
  const p = portal as { columns: unknown[]; rows: unknown[][] };
  const t = truth as { columns: unknown[]; rows: unknown[][] };
  return (
    deepEqual(p.columns, t.columns) &&
    p.rows.length === t.rows.length &&
    p.rows.every((r, i) => nearTime(r[0], t.rows[i][0]) && deepEqual(r.slice(1), t.rows[i].slice(1)))
  );
};

/**
 * A value the portal rounds, computed here from gaps a few seconds off the crawl's own clock (the
 * account knows the virtual moments, not the milliseconds a crawl took): the portal's value must be
 * the rounding of the independent one moved by at most a thousandth.
 */
function rounded(portal: unknown, exact: number, round: (x: number) => number): boolean {
  if (typeof portal !== 'number') return false;
  return [exact, exact * 0.999, exact * 1.001].some((x) => round(x) === portal);
}

/**
 * A ranking by an estimated rate (the top `limit` of all candidates): the portal's rows must be
 * candidates with the same values (`rates` columns rounded as the portal rounds them), in an order
 * that never puts a lower rate before a higher one, and no candidate left out may rank above the
 * last one shown. Rates the account and the crawl's clock see a few seconds apart count as equal
 * within a thousandth, so documents with the same rate may be shown in any order.
 */
function rankedTable(o: {
  readonly rate: number;
  readonly direction: 1 | -1;
  readonly limit: number;
  readonly rates: Readonly<Record<number, (x: number) => number>>;
}): Agreement {
  return (portal, truth) => {
    const p = portal as { columns: unknown[]; rows: unknown[][] };
    const t = truth as { columns: unknown[]; rows: unknown[][] };
    if (!deepEqual(p.columns, t.columns) || p.rows.length !== Math.min(o.limit, t.rows.length)) return false;
    const byKey = new Map(t.rows.map((r) => [r[0], r]));
    const cell = (v: unknown, want: unknown, j: number) => {
      if (j in o.rates) return rounded(v, Number(want), o.rates[j]);
      if (typeof want === 'string' && want.includes(' to ')) {
        const [pl, ph] = String(v).split(' to ').map(Number);
        const [tl, th] = want.split(' to ').map(Number);
        return rounded(pl, tl, round2) && rounded(ph, th, round2);
      }
      return deepEqual(v, want);
    };
    const shown = p.rows.map((r) => byKey.get(r[0]));
    if (!shown.every((want, i) => want && p.rows[i].every((v, j) => cell(v, want[j], j)))) return false;
    // ordered by the rate as shown (rounded), ties in any order
    const shownRate = o.rates[o.rate] ?? ((x: number) => x);
    const rate = (r: unknown[] | undefined) => o.direction * shownRate(Number(r![o.rate]));
    const tolerance = (x: number) => Math.abs(x) * 1e-3 + 1e-12;
    for (let i = 1; i < shown.length; i++)
      if (rate(shown[i]) > rate(shown[i - 1]) + tolerance(rate(shown[i - 1]))) return false;
    const last = rate(shown.at(-1));
    const keys = new Set(p.rows.map((r) => r[0]));
    return t.rows.every((r) => keys.has(r[0]) || rate(r) <= last + tolerance(last));
  };
}

/** Kernel documents per level: exact where the log decides every level, else within its bounds. */
const levelsAgree: Agreement = (portal, truth) => {
  const p = portal as Record<string, number>;
  const t = truth as LevelFigure;
  if (t.exact) return deepEqual(p, t.low);
  const levels = new Set([...Object.keys(p), ...Object.keys(t.high)]);
  return (
    Object.values(p).reduce((a, b) => a + b, 0) === t.documents &&
    [...levels].every((l) => (p[l] ?? 0) >= (t.low[l] ?? 0) && (p[l] ?? 0) <= (t.high[l] ?? 0))
  );
};

// --- independent values -----------------------------------------------------------------------------

const snap = (t: AuditInput, s: Scope): SnapshotTruth => {
  const found = t.truth.snapshots.get(s.snapshots);
  if (!found)
    throw new Error(`the portal shows snapshot ${s.snapshots}, which no crawl of the series published`);
  return found;
};
const iso = (ms: number) => new Date(ms).toISOString();
const pct = (part: number, whole: number) => `${((whole > 0 ? part / whole : 0) * 100).toFixed(1)}%`;
const table = (columns: string[], rows: Row[]) => ({ columns, rows });

function weekly(t: AuditInput): SnapshotTruth[] {
  const all = t.truth.order.map((n) => t.truth.snapshots.get(n)!);
  const w = all.filter((s) => s.crawl.kind === 'weekly');
  return w.length > 0 ? w : all;
}
const allSnapshots = (t: AuditInput) => t.truth.order.map((n) => t.truth.snapshots.get(n)!);

function exactLevels(f: LevelFigure): Record<string, number> {
  if (!f.exact) throw new Error('levels after a weekly snapshot are always decided by the log');
  return f.low;
}

const CHARTS: Readonly<Record<string, (t: AuditInput) => unknown>> = {
  documents: (t) =>
    table(
      ['snapshot start', 'series', 'documents'],
      [
        ...weekly(t).map((s) => [iso(s.crawl.at), 'attempted', s.rows.length]),
        ...weekly(t).map((s) => [iso(s.crawl.at), 'returned RDF', s.digest.available as number]),
      ],
    ),
  statements: (t) =>
    table(
      ['snapshot start', 'series', 'statements'],
      weekly(t).map((s) => [iso(s.crawl.at), 'statements', s.stats.statements as number]),
    ),
  plds: (t) =>
    table(
      ['snapshot start', 'series', 'PLDs'],
      [
        ...weekly(t).map((s) => [iso(s.crawl.at), 'PLDs', s.plds.size]),
        ...weekly(t).map((s) => [iso(s.crawl.at), 'new PLDs', s.newPlds]),
      ],
    ),
  availability: (t) =>
    table(
      ['snapshot start', 'series', 'returned RDF'],
      allSnapshots(t).map((s) => [
        iso(s.crawl.at),
        s.crawl.kind,
        pct(s.digest.available as number, s.rows.length),
      ]),
    ),
  changed: (t) =>
    table(
      ['snapshot start', 'series', 'changed'],
      allSnapshots(t).map((s) => {
        const c = s.stats.changes as { changed: number; unchanged: number };
        return [iso(s.crawl.at), s.crawl.kind, pct(c.changed, c.changed + c.unchanged)];
      }),
    ),
  'change-frequency': (t) =>
    table(['changes a week (estimated)', 'kernel documents'], changeFrequency(t.truth)),
  levels: (t) =>
    table(
      ['snapshot start', 'series', 'kernel documents'],
      weekly(t).flatMap((s) =>
        Object.entries(exactLevels(s.digest.levels))
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([level, n]) => [iso(s.crawl.at), `level ${level} (${2 ** Number(level)}x a week)`, n]),
      ),
    ),
  'change-degree': (t) => {
    const sum: Record<string, number> = {};
    for (const s of allSnapshots(t))
      for (const b of s.digest.changeDegree as Array<{ key: string; count: number }>)
        sum[b.key] = (sum[b.key] ?? 0) + b.count;
    return table(
      ['triples added + removed', 'changes'],
      DEGREE_BUCKETS.filter((b) => sum[b]).map((b) => [b, sum[b]]),
    );
  },
  'availability-distribution': (t) => table(['availability', 'documents'], availabilityDistribution(t.truth)),
  lifespan: (t) => table(['observed for', 'documents'], lifespan(t.truth)),
};
const TIME_CHARTS = new Set(['documents', 'statements', 'plds', 'availability', 'changed', 'levels']);

const CHART_PARTS = {
  id: 'the chart’s name',
  title: 'words',
  summary: 'words: the chart’s text alternative',
  svg: 'the drawing of the chart’s table, which is checked',
  narrowSvg: 'the drawing of the chart’s table, which is checked',
};

function reproduction(t: AuditInput, id: string) {
  const newest = t.truth.snapshots.get(t.truth.latestWeekly)!;
  switch (id) {
    case 'dyldo-figure-2':
      return table(
        ['crawl', 'round', 'documents', 'RDF documents', 'statements'],
        roundFigures(newest).map((r) => r.slice(0, 5)),
      );
    case 'dyldo-figure-3':
      return table(
        ['crawl', 'round', 'PLDs', 'new PLDs'],
        roundFigures(newest).map((r) => [r[0], r[1], r[5], r[6]]),
      );
    case 'dyldo-figure-4': {
      const perPld = kernelRdfPerPld(newest);
      const dist: Record<number, number> = {};
      for (const n of Object.values(perPld)) dist[n] = (dist[n] ?? 0) + 1;
      return table(
        ['documents on the PLD', 'PLDs'],
        Object.entries(dist)
          .map(([n, plds]) => [Number(n), plds])
          .sort((a, b) => a[0] - b[0]),
      );
    }
    case 'dyldo-table-4': {
      const perPld = kernelRdfPerPld(newest);
      const total = Object.values(perPld).reduce((a, b) => a + b, 0);
      return table(
        ['PLD', 'kernel documents', 'share of the kernel'],
        top(perPld, 25).map((r) => [r.key, r.count, `${((100 * r.count) / total).toFixed(1)}%`]),
      );
    }
    case 'dyldo-figure-6': {
      // every crawl of the audited series ends within its first hour (a few seconds of real time)
      const rdf = newest.rows.filter((r) => statementsOf(r) > 0 && r.format !== null).length;
      return table(['hour', 'documents', 'RDF documents'], [[0, newest.rows.length, rdf]]);
    }
    default:
      throw new Error(`reproduction ${id} has no independent figure in the audit`);
  }
}

function domain(t: AuditInput, pld: string) {
  const snapshots = weekly(t);
  const series = snapshots.flatMap((s) => {
    const p = s.plds.get(pld);
    return p ? [{ ...p, snapshot: s.crawl.name }] : [];
  });
  let comparisons = 0;
  let changed = 0;
  for (const s of allSnapshots(t)) {
    comparisons += s.plds.get(pld)?.comparisons ?? 0;
    changed += s.plds.get(pld)?.changed ?? 0;
  }
  const newest = t.truth.snapshots.get(t.truth.latestWeekly)!;
  const rows = newest.rows.filter((r) => r.pld === pld);
  const errors: Record<string, { n: number; first: string }> = {};
  for (const r of rows)
    if (r.error !== null) {
      // rows come sorted by URL: the first is the example
      const e = errors[r.error] ?? { n: 0, first: r.url };
      errors[r.error] = { n: e.n + 1, first: e.first };
    }
  const at = (name: string) => iso(t.truth.snapshots.get(name)!.crawl.at);
  return {
    pld,
    series,
    comparisons,
    changed,
    chart: {
      table: table(
        ['snapshot start', 'series', 'documents'],
        [
          ...series.map((p) => [at(p.snapshot), 'attempted', p.documents]),
          ...series.map((p) => [at(p.snapshot), 'returned RDF', p.available]),
        ],
      ),
    },
    latest:
      rows.length === 0
        ? null
        : {
            documents: rows.length,
            listed: table(
              ['document', 'status', 'error', 'format', 'statements'],
              rows.slice(0, 50).map((r) => [r.url, r.status, r.error, r.format, statementsOf(r)]),
            ),
            errors: table(
              ['error', 'documents', 'example'],
              Object.entries(errors)
                .sort(([a, x], [b, y]) => y.n - x.n || (a < b ? -1 : 1))
                .map(([e, x]) => [e, x.n, x.first]),
            ),
          },
  };
}

/** Domain pages: the chart's time column within a minute, everything else exact. */
const domainAgree: Agreement = (portal, truth) => {
  const p = portal as Record<string, unknown> & { chart: { table: unknown } };
  const t = truth as Record<string, unknown> & { chart: { table: unknown } };
  return timeTable(p.chart.table, t.chart.table) && deepEqual({ ...p, chart: null }, { ...t, chart: null });
};

// --- the catalogue of figures -----------------------------------------------------------------------

const stat = (path: string): Checked => ({
  figure: `snapshots[].stats.${path}`,
  truth: (t, s) =>
    path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], snap(t, s).stats),
});
const digest = (field: string, agree?: Agreement): Checked => ({
  figure: `snapshots[].digest.${field}`,
  truth: (t, s) => snap(t, s).digest[field],
  agree,
});

/** Every part of portal.json: checked against the independent figures, or listed with the reason it is not. */
export const FIGURES: readonly Entry[] = [
  { figure: 'portalVersion', reason: 'the version of portal.json’s shape' },
  { figure: 'baseUrl', reason: 'a link (test/portal/portal.test.ts resolves every link of the built site)' },
  { figure: 'dataset', reason: 'words and links describing the dataset series (VoID/DCAT)' },
  { figure: 'snapshots[].name', truth: (t, s) => snap(t, s).crawl.name },
  { figure: 'snapshots[].kind', truth: (t, s) => snap(t, s).crawl.kind },
  { figure: 'snapshots[].startedAt', truth: (t, s) => iso(snap(t, s).crawl.at), agree: nearTime },
  {
    figure: 'snapshots[].endedAt',
    reason: 'when the crawl ended on its own clock: the server sees requests, not the end of publishing',
  },
  { figure: 'snapshots[].publishedAt', reason: 'when the folder was published: no server-side counterpart' },
  { figure: 'snapshots[].previous', truth: (t, s) => snap(t, s).previous },
  { figure: 'snapshots[].counts', truth: (t, s) => snap(t, s).counts },
  ...[
    'documents',
    'bytes',
    'statements',
    'distinctSubjects',
    'distinctPredicates',
    'distinctClasses',
    'literals',
    'distinctBlankNodes',
    'redirectHops',
    'redirectedDocuments',
    'byStatus',
    'byError',
    'byFormat',
    'bySegment',
    'plds',
    'topClasses',
    'topPredicates',
    'changes.changed',
    'changes.unchanged',
    'changes.new',
    'changes.notComparable',
    'changes.availabilityChanged',
    'changes.triplesAdded',
    'changes.triplesRemoved',
  ].map(stat),
  { figure: 'snapshots[].newPlds', truth: (t, s) => snap(t, s).newPlds },
  digest('available'),
  digest('availabilityChanged'),
  digest('levels', levelsAgree),
  digest('changeDegree'),
  digest('redirectStatuses'),
  digest('redirectChains'),
  {
    figure: 'snapshots[].digest.errorExamples',
    truth: (t, s) => snap(t, s).digest.errorExamples,
    unaudited: { '[].message': 'the crawler’s own words for the error (a server’s or a parser’s message)' },
  },
  digest('plds'),
  digest('classes'),
  {
    figure: 'snapshots[].files',
    truth: async (t, s) =>
      Promise.all(
        (t.data.snapshots.find((x) => x.name === s.snapshots)?.files ?? []).map(async (f) => ({
          name: f.name,
          ...(await fileFacts(t.root, s.snapshots, f.name)),
          ...(f.name in snap(t, s).tableRows ? { rows: snap(t, s).tableRows[f.name] } : {}),
        })),
      ),
    unaudited: {
      '[].url': 'a link (test/portal/portal.test.ts downloads every file and compares size and SHA-256)',
    },
  },
  {
    figure: 'snapshots[].manifestSha256',
    truth: async (t, s) => (await fileFacts(t.root, s.snapshots, 'manifest.json')).sha256,
  },
  {
    figure: 'expansions',
    reason:
      'the audited series runs no expansion (its kernel is taken from the truth); an expansion crawl’s rounds are a when, not a hop distance (docs/crawling.md), which the server cannot see',
  },
  { figure: 'latestWeekly', truth: (t) => t.truth.latestWeekly },
  ...Object.keys(CHARTS).flatMap((id): Entry[] => [
    {
      figure: `charts.${id}.table`,
      truth: (t) => CHARTS[id](t),
      agree: TIME_CHARTS.has(id) ? timeTable : id === 'change-frequency' ? frequencyAgree : undefined,
    },
    ...Object.entries(CHART_PARTS).map(([part, reason]) => ({ figure: `charts.${id}.${part}`, reason })),
  ]),
  {
    figure: 'reproductions[].table',
    truth: (t, s) => reproduction(t, s.reproductions),
  },
  { figure: 'reproductions[].chart.table', truth: (t, s) => reproduction(t, s.reproductions) },
  { figure: 'reproductions[].chart', reason: 'a table has no chart (null)', leafOnly: true },
  ...Object.entries(CHART_PARTS).map(([part, reason]) => ({
    figure: `reproductions[].chart.${part}`,
    reason,
  })),
  ...['id', 'paper', 'title', 'summary', 'differences', 'query'].map((part) => ({
    figure: `reproductions[].${part}`,
    reason: 'words: what the figure is, how it differs from the paper’s and the query that computes it',
  })),
  {
    figure: 'strategies',
    reason:
      'the outputs of `observatory evaluate` / `estimate` the build is given, shown as they are: no crawl figure',
  },
  {
    figure: 'dynamics.mostDynamicPlds',
    truth: (t) =>
      table(
        ['PLD', 'documents', 'comparisons', 'changes', 'change rate', 'changes a week (mean)'],
        dynamicPlds(t.truth, 1),
      ),
    agree: rankedTable({ rate: 5, direction: 1, limit: 15, rates: { 5: round2 } }),
  },
  {
    figure: 'dynamics.leastDynamicPlds',
    truth: (t) =>
      table(
        ['PLD', 'documents', 'comparisons', 'changes', 'change rate', 'changes a week (mean)'],
        dynamicPlds(t.truth, -1),
      ),
    agree: rankedTable({ rate: 5, direction: -1, limit: 15, rates: { 5: round2 } }),
  },
  {
    figure: 'dynamics.mostDynamicDocuments',
    truth: (t) =>
      table(
        ['document', 'comparisons', 'changes', 'observed days', 'changes a week', '95% interval'],
        dynamicDocuments(t.truth),
      ),
    agree: rankedTable({ rate: 4, direction: 1, limit: 15, rates: { 3: Math.round, 4: round2 } }),
  },
  {
    figure: 'dynamics.vocabularies',
    truth: (t) => table(['class', 'comparisons', 'changes', 'change rate'], vocabularies(t.truth)),
  },
  {
    figure: 'domains',
    truth: (t) =>
      [...new Set(weekly(t).flatMap((s) => [...s.plds.keys()]))]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((pld) => domain(t, pld)),
    agree: (p, t) =>
      Array.isArray(p) &&
      Array.isArray(t) &&
      p.length === t.length &&
      p.every((x, i) => domainAgree(x, t[i])),
    unaudited: {
      '[].slug': 'the path segment of the PLD’s page',
      '[].chart.id': CHART_PARTS.id,
      '[].chart.title': CHART_PARTS.title,
      '[].chart.summary': CHART_PARTS.summary,
      '[].chart.svg': CHART_PARTS.svg,
      '[].chart.narrowSvg': CHART_PARTS.narrowSvg,
    },
  },
  {
    figure: 'errata',
    reason: 'figures once published wrong and the schema versions that state them: text (docs/errata.md)',
  },
  { figure: 'dictionary', reason: 'the data dictionary: words (docs/data-dictionary.md)' },
  { figure: 'definitions', reason: 'the figures’ definitions: words (docs/data-dictionary.md)' },
  { figure: 'queries', reason: 'example queries: words (docs/queries)' },
  {
    figure: 'crawler',
    reason: 'the crawler’s configuration as the About page states it: settings, not measurements',
  },
  { figure: 'datasetFiles', reason: 'file names' },
  { figure: 'catalogueUrl', reason: 'a link' },
  { figure: 'latestUrl', reason: 'a link' },
  { figure: 'latestUrlList', reason: 'a link' },
  { figure: 'tableUrlLists', reason: 'links' },
];

/** The estimate's bucket moves only for a document whose estimate lies within a thousandth of a bucket's edge. */
function frequencyAgree(portal: unknown, truth: unknown): boolean {
  const p = portal as { columns: unknown[]; rows: Array<[string, number]> };
  const t = truth as { columns: unknown[]; rows: Array<[string, number]>; nearEdge?: number };
  if (deepEqual(p, t)) return true;
  const slack = frequencySlack;
  const count = (rows: Array<[string, number]>, label: string) => rows.find((r) => r[0] === label)?.[1] ?? 0;
  const labels = new Set([...p.rows.map((r) => r[0]), ...t.rows.map((r) => r[0])]);
  return (
    deepEqual(p.columns, t.columns) &&
    p.rows.reduce((n, r) => n + r[1], 0) === t.rows.reduce((n, r) => n + r[1], 0) &&
    [...labels].every((l) => Math.abs(count(p.rows, l) - count(t.rows, l)) <= slack)
  );
}
let frequencySlack = 0;

/** Kernel documents whose estimated rate lies within a thousandth of a frequency bucket's edge. */
function nearEdge(t: Truth): number {
  let n = 0;
  for (const h of t.documents.values()) {
    if (!h.kernel || h.changes === 0) continue;
    const r = rateOf(h).perWeek;
    if (FREQUENCY_BUCKETS.some(([, edge]) => Math.abs(r - edge) <= edge * 1e-3)) n++;
  }
  return n;
}

// --- the walk ---------------------------------------------------------------------------------------

export type Verdict = 'agrees' | 'DIFFERS' | 'known wrong';

export interface AuditRow {
  /** The figure's place in portal.json, with the ids of the elements on its path. */
  readonly figure: string;
  readonly pattern: string;
  readonly portal: unknown;
  readonly independent: unknown;
  readonly verdict: Verdict;
  /** Leaves of portal.json the comparison covers. */
  readonly leaves: number;
}

/** A figure the portal publishes wrong, reported and not fixed yet: its verdict is `known wrong`. */
export interface KnownWrong {
  readonly figure: string;
  readonly why: string;
}

export interface AuditReport {
  readonly rows: readonly AuditRow[];
  /** Listed figures: pattern, reason, leaves. */
  readonly listed: ReadonlyArray<{
    readonly figure: string;
    readonly reason: string;
    readonly leaves: number;
  }>;
  /** Leaves no entry of FIGURES covers: new figures nobody audited. */
  readonly unaudited: readonly string[];
  /** Known-wrong entries whose figure agreed everywhere (fixed: remove the entry). */
  readonly staleKnownWrong: readonly string[];
  readonly checkedLeaves: number;
  readonly listedLeaves: number;
}

const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object';

function countLeaves(v: unknown): number {
  if (!isContainer(v)) return 1;
  const children = Object.values(v);
  return children.reduce((n: number, c) => n + countLeaves(c), 0);
}

/** The id an array element is known by in a figure's name. */
function elementId(v: unknown, index: number): string {
  if (isContainer(v)) {
    const o = v as Record<string, unknown>;
    for (const k of ['name', 'pld', 'id', 'table', 'file', 'key', 'url'])
      if (typeof o[k] === 'string') return o[k] as string;
  }
  return String(index);
}

/** Removes the parts at `patterns` (relative, `[]` for every element) from a copy of `v`; counts their leaves. */
function strip(v: unknown, patterns: readonly string[]): { value: unknown; leaves: number } {
  let leaves = 0;
  const go = (x: unknown, path: string): unknown => {
    if (patterns.includes(path)) {
      leaves += countLeaves(x);
      return undefined;
    }
    if (Array.isArray(x)) return x.map((e) => go(e, `${path}[]`));
    if (isContainer(x))
      return Object.fromEntries(
        Object.entries(x)
          .map(([k, e]) => [k, go(e, `${path}.${k}`)] as const)
          .filter(([, e]) => e !== undefined),
      );
    return x;
  };
  const value = go(v, '');
  return { value, leaves };
}

/** Walks portal.json and compares every figure with its independent value. */
export async function auditPortal(
  input: AuditInput,
  knownWrong: readonly KnownWrong[] = [],
): Promise<AuditReport> {
  frequencySlack = nearEdge(input.truth);
  const entries = new Map(FIGURES.map((e) => [e.figure, e]));
  const rows: AuditRow[] = [];
  const listed = new Map<string, { reason: string; leaves: number }>();
  const unaudited: string[] = [];
  const known = new Map(knownWrong.map((k) => [k.figure, k]));
  const wrongSeen = new Set<string>();

  const visit = async (v: unknown, pattern: string, name: string, scope: Scope): Promise<void> => {
    const found = entries.get(pattern);
    const entry = found && 'leafOnly' in found && isContainer(v) ? undefined : found;
    if (entry && 'reason' in entry) {
      const l = listed.get(pattern) ?? { reason: entry.reason, leaves: 0 };
      listed.set(pattern, { ...l, leaves: l.leaves + countLeaves(v) });
      return;
    }
    if (entry) {
      const parts = Object.keys(entry.unaudited ?? {});
      const { value, leaves } = strip(v, parts);
      for (const part of parts) {
        const l = listed.get(pattern + part) ?? { reason: entry.unaudited![part], leaves: 0 };
        listed.set(pattern + part, { ...l, leaves: l.leaves + strip(v, [part]).leaves });
      }
      let independent: unknown;
      let agrees: boolean;
      try {
        independent = await entry.truth(input, scope);
        agrees = (entry.agree ?? deepEqual)(value, independent);
      } catch (error) {
        independent = `(no independent value: ${(error as Error).message})`;
        agrees = false;
      }
      const k = known.get(pattern);
      if (!agrees && k) wrongSeen.add(pattern);
      rows.push({
        figure: name,
        pattern,
        portal: value,
        independent,
        verdict: agrees ? 'agrees' : k ? 'known wrong' : 'DIFFERS',
        leaves: countLeaves(v) - leaves,
      });
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, e] of v.entries()) {
        const id = elementId(e, i);
        await visit(e, `${pattern}[]`, `${name}[${id}]`, { ...scope, [pattern]: id });
      }
      return;
    }
    if (isContainer(v)) {
      for (const [k, e] of Object.entries(v)) {
        const p = pattern === '' ? k : `${pattern}.${k}`;
        await visit(e, p, name === '' ? k : `${name}.${k}`, scope);
      }
      return;
    }
    unaudited.push(name);
  };
  await visit(input.data, '', '', {});
  const listedRows = [...listed].map(([figure, l]) => ({ figure, ...l }));
  return {
    rows,
    listed: listedRows,
    unaudited,
    staleKnownWrong: knownWrong.filter((k) => !wrongSeen.has(k.figure)).map((k) => k.figure),
    checkedLeaves: rows.reduce((n, r) => n + r.leaves, 0),
    listedLeaves: listedRows.reduce((n, l) => n + l.leaves, 0),
  };
}
