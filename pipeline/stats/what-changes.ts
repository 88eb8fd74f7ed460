import { type DeltaCount, type DeltaFigures, parquetFileName } from '../snapshot/index.ts';
import { type SeriesPoint, timeChart } from './charts.ts';
import type { Chart, DataTable, SnapshotView } from './portal-data.ts';

/** Rows of each ranking the "What changes" page shows. */
const SHOWN = 25;

/**
 * The "What changes" page (after Käfer et al., "Observing Linked Data Dynamics", ESWC 2013): which
 * predicates, classes and links the changed documents gained and lost, churn per PLD, week by
 * week; summed from each snapshot's digest (its delta figures), so a build reads no delta.parquet.
 */
export interface WhatChangesView {
  /** The first snapshot with delta.parquet (schema 5); null when none has it. */
  readonly since: string | null;
  readonly weeks: DataTable;
  readonly predicates: DataTable;
  readonly classes: DataTable;
  readonly links: DataTable;
  readonly plds: DataTable;
}

/**
 * The snapshots grouped into weeks: each weekly snapshot with the interval snapshots after it, up
 * to the next weekly one; an interval snapshot before any weekly one is a week of its own
 * (docs/queries/delta-churn-per-pld.sql groups them alike).
 */
export function weeksOf<T extends { readonly kind: string }>(snapshots: readonly T[]): T[][] {
  const weeks: T[][] = [];
  let weekly = false;
  for (const s of snapshots) {
    weekly ||= s.kind === 'weekly';
    if (s.kind === 'weekly' || !weekly) weeks.push([s]);
    else weeks[weeks.length - 1].push(s);
  }
  return weeks;
}

function sumCounts(lists: ReadonlyArray<readonly DeltaCount[]>): DataTable['rows'] {
  const totals = new Map<string, { added: number; removed: number }>();
  for (const list of lists)
    for (const c of list) {
      const t = totals.get(c.key);
      if (t === undefined) totals.set(c.key, { added: c.added, removed: c.removed });
      else {
        t.added += c.added;
        t.removed += c.removed;
      }
    }
  return [...totals]
    .map(([key, t]) => [key, t.added, t.removed] as const)
    .sort((a, b) => b[1] + b[2] - (a[1] + a[2]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, SHOWN);
}

const sum = (figures: readonly DeltaFigures[], field: keyof DeltaFigures) =>
  figures.reduce((n, f) => n + (f[field] as number), 0);

const hasDelta = (s: SnapshotView) => s.files.some((f) => f.name === parquetFileName('delta'));

/** The weeks with a snapshot that publishes delta.parquet: a week before schema 5 has no figures, not none. */
function deltaWeeks(snapshots: readonly SnapshotView[]): SnapshotView[][] {
  return weeksOf(snapshots).filter((week) => week.some(hasDelta));
}

/** The page's tables from the snapshots' digests. */
export function whatChangesView(snapshots: readonly SnapshotView[]): WhatChangesView {
  const all = snapshots.map((s) => s.digest.delta);
  const weeks = deltaWeeks(snapshots).map((week) => {
    const figures = week.map((s) => s.digest.delta);
    const churn = new Map<string, number>();
    for (const f of figures)
      for (const p of f.plds) churn.set(p.pld, (churn.get(p.pld) ?? 0) + p.added + p.removed);
    const [busiest] = [...churn].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return [
      week[0].name,
      week.length,
      sum(figures, 'documents'),
      sum(figures, 'added'),
      sum(figures, 'removed'),
      sum(figures, 'linksAdded'),
      sum(figures, 'linksRemoved'),
      sum(figures, 'typesAdded'),
      sum(figures, 'typesRemoved'),
      busiest?.[0] ?? null,
    ];
  });
  const plds = new Map<string, { documents: number; added: number; removed: number }>();
  for (const f of all)
    for (const p of f.plds) {
      const t = plds.get(p.pld);
      if (t === undefined) plds.set(p.pld, { documents: p.documents, added: p.added, removed: p.removed });
      else {
        t.documents += p.documents;
        t.added += p.added;
        t.removed += p.removed;
      }
    }
  return {
    since: snapshots.find(hasDelta)?.name ?? null,
    weeks: {
      columns: [
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
      rows: weeks,
    },
    predicates: { columns: ['predicate', 'added', 'removed'], rows: sumCounts(all.map((f) => f.predicates)) },
    classes: { columns: ['class', 'added', 'removed'], rows: sumCounts(all.map((f) => f.classes)) },
    links: { columns: ['link target', 'gained', 'lost'], rows: sumCounts(all.map((f) => f.linkTargets)) },
    plds: {
      columns: [
        'PLD',
        'changed documents',
        'statements added',
        'statements removed',
        'churn per changed document',
      ],
      rows: [...plds]
        .map(
          ([pld, t]) =>
            [
              pld,
              t.documents,
              t.added,
              t.removed,
              Number(((t.added + t.removed) / t.documents).toFixed(1)),
            ] as const,
        )
        .sort((a, b) => b[2] + b[3] - (a[2] + a[3]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .slice(0, SHOWN),
    },
  };
}

/** Statements added and removed week by week, at the week's first snapshot. */
export function statementsChangedChart(snapshots: readonly SnapshotView[]): Promise<Chart> {
  const weeks = deltaWeeks(snapshots);
  const points = (['added', 'removed'] as const).flatMap((series) =>
    weeks.map(
      (week): SeriesPoint => ({
        at: week[0].startedAt,
        series,
        value: sum(
          week.map((s) => s.digest.delta),
          series,
        ),
      }),
    ),
  );
  return timeChart(
    {
      id: 'statements-changed',
      title: 'Statements added and removed, week by week',
      summary:
        'Statements the changed documents gained and lost each week (a weekly snapshot and the re-visits after it), each document against its previous observation.',
      yTitle: 'statements',
    },
    points,
    weeks.map((w) => w[0].startedAt),
  );
}
