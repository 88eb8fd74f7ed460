/**
 * The independent values of the portal's composite figures: its charts' tables, the papers' figures
 * on the Reproductions page and the PLD pages, built from the independent figures
 * (independent-figures.ts) in the shape portal.json gives them.
 */
import type { AuditInput } from './agreements.ts';
import {
  availabilityDistribution,
  changeFrequency,
  DEGREE_BUCKETS,
  type DeltaTruth,
  kernelRdfPerPld,
  type LevelFigure,
  lifespan,
  type Row,
  roundFigures,
  type SnapshotTruth,
  top,
} from './independent-figures.ts';
import { statementsOf } from './observations.ts';

/** Where a node lies: the ids of the array elements on its path (snapshot name, PLD, chart or figure id). */
export type Scope = Readonly<Record<string, string>>;

export const snap = (t: AuditInput, s: Scope): SnapshotTruth => {
  const found = t.truth.snapshots.get(s.snapshots);
  if (!found)
    throw new Error(`the portal shows snapshot ${s.snapshots}, which no crawl of the series published`);
  return found;
};
export const iso = (ms: number) => new Date(ms).toISOString();
export const pct = (part: number, whole: number) => `${((whole > 0 ? part / whole : 0) * 100).toFixed(1)}%`;
export const table = (columns: string[], rows: Row[]) => ({ columns, rows });

export function weekly(t: AuditInput): SnapshotTruth[] {
  const all = t.truth.order.map((n) => t.truth.snapshots.get(n)!);
  const w = all.filter((s) => s.crawl.kind === 'weekly');
  return w.length > 0 ? w : all;
}
export const allSnapshots = (t: AuditInput) => t.truth.order.map((n) => t.truth.snapshots.get(n)!);

function exactLevels(f: LevelFigure): Record<string, number> {
  if (!f.exact) throw new Error('levels after a weekly snapshot are always decided by the log');
  return f.low;
}

export const CHARTS: Readonly<Record<string, (t: AuditInput) => unknown>> = {
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
  'statements-changed': (t) => {
    const weeks = deltaWeeks(t);
    return table(
      ['snapshot start', 'series', 'statements'],
      [
        ...weeks.map((w) => [iso(w[0].crawl.at), 'added', sumDelta(w, 'added')]),
        ...weeks.map((w) => [iso(w[0].crawl.at), 'removed', sumDelta(w, 'removed')]),
      ],
    );
  },
};
export const TIME_CHARTS = new Set([
  'documents',
  'statements',
  'plds',
  'availability',
  'changed',
  'levels',
  'statements-changed',
]);

const deltaOf = (s: SnapshotTruth) => s.digest.delta as DeltaTruth;
const sumDelta = (week: readonly SnapshotTruth[], field: 'added' | 'removed' | 'documents') =>
  week.reduce((n, s) => n + deltaOf(s)[field], 0);

/** The weeks of the What changes page: a weekly crawl and the interval crawls after it (Definitions, week). */
function deltaWeeks(t: AuditInput): SnapshotTruth[][] {
  const weeks: SnapshotTruth[][] = [];
  for (const s of allSnapshots(t)) {
    const afterWeekly = weeks.some((w) => w[0].crawl.kind === 'weekly');
    if (s.crawl.kind === 'weekly' || !afterWeekly) weeks.push([s]);
    else weeks[weeks.length - 1].push(s);
  }
  return weeks;
}

/** The 25 keys of most added + removed over the series, from each snapshot's ranking. */
function summed(
  t: AuditInput,
  list: (d: DeltaTruth) => ReadonlyArray<{ key: string; added: number; removed: number }>,
) {
  const totals = new Map<string, [number, number]>();
  for (const s of allSnapshots(t))
    for (const k of list(deltaOf(s))) {
      const [a, r] = totals.get(k.key) ?? [0, 0];
      totals.set(k.key, [a + k.added, r + k.removed]);
    }
  return [...totals]
    .sort(([a, x], [b, y]) => y[0] + y[1] - (x[0] + x[1]) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, 25)
    .map(([key, [added, removed]]) => [key, added, removed]);
}

/** The What changes page's tables, summed from the account's per-snapshot delta figures. */
export const WHAT_CHANGES: Readonly<Record<string, (t: AuditInput) => unknown>> = {
  since: (t) => t.truth.order[0] ?? null,
  weeks: (t) =>
    table(
      [
        'week of',
        'snapshots',
        'documents changed',
        'statements added',
        'statements removed',
        'links gained',
        'links lost',
        'types added',
        'types removed',
        'PLD with most churn',
      ],
      deltaWeeks(t).map((week) => {
        const churn = new Map<string, number>();
        for (const s of week)
          for (const p of deltaOf(s).plds) churn.set(p.pld, (churn.get(p.pld) ?? 0) + p.added + p.removed);
        const busiest = [...churn].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
        const total = (f: keyof DeltaTruth) => week.reduce((n, s) => n + (deltaOf(s)[f] as number), 0);
        return [
          week[0].crawl.name,
          week.length,
          total('documents'),
          total('added'),
          total('removed'),
          total('linksAdded'),
          total('linksRemoved'),
          total('typesAdded'),
          total('typesRemoved'),
          busiest,
        ];
      }),
    ),
  predicates: (t) =>
    table(
      ['predicate', 'added', 'removed'],
      summed(t, (d) => d.predicates),
    ),
  classes: (t) =>
    table(
      ['class', 'added', 'removed'],
      summed(t, (d) => d.classes),
    ),
  links: (t) =>
    table(
      ['link target', 'gained', 'lost'],
      summed(t, (d) => d.linkTargets),
    ),
  plds: (t) => {
    const totals = new Map<string, [number, number, number]>();
    for (const s of allSnapshots(t))
      for (const p of deltaOf(s).plds) {
        const [d, a, r] = totals.get(p.pld) ?? [0, 0, 0];
        totals.set(p.pld, [d + p.documents, a + p.added, r + p.removed]);
      }
    return table(
      ['PLD', 'changed documents', 'statements added', 'statements removed', 'churn per changed document'],
      [...totals]
        .sort(([a, x], [b, y]) => y[1] + y[2] - (x[1] + x[2]) || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, 25)
        .map(([pld, [d, a, r]]) => [pld, d, a, r, Number(((a + r) / d).toFixed(1))]),
    );
  },
};

export const CHART_PARTS = {
  id: 'the chart’s name',
  title: 'words',
  summary: 'words: the chart’s text alternative',
  svg: 'the drawing of the chart’s table, which is checked',
  narrowSvg: 'the drawing of the chart’s table, which is checked',
};

export function reproduction(t: AuditInput, id: string) {
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

export function domain(t: AuditInput, pld: string) {
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
