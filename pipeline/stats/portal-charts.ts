import { barChart, type SeriesPoint, stackedTimeChart, timeChart } from './charts.ts';
import type { HistoryFigures } from './history.ts';
import { weeklyTrend } from './latest-alias.ts';
import type { Chart, DataTable, SnapshotView } from './portal-data.ts';
import { statementsChangedChart } from './what-changes.ts';

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** Every chart of the portal, keyed by id: trends on the home page, distributions on Dynamics, What changes. */
export async function portalCharts(
  snapshots: readonly SnapshotView[],
  history: HistoryFigures,
): Promise<Record<string, Chart>> {
  const trend = weeklyTrend(snapshots);
  const points = (list: readonly SnapshotView[], series: string, value: (s: SnapshotView) => number) =>
    list.map((s): SeriesPoint => ({ at: s.startedAt, series, value: value(s) }));
  const byKind = (value: (s: SnapshotView) => number) =>
    snapshots.map((s) => ({ at: s.startedAt, series: s.kind, value: value(s) }));
  // time axes are labelled at the weekly snapshots (every snapshot when there is no weekly one)
  const ticks = trend.map((s) => s.startedAt);
  const degree = new Map<string, number>();
  for (const s of snapshots)
    for (const b of s.digest.changeDegree) degree.set(b.key, (degree.get(b.key) ?? 0) + b.count);
  // buckets by their lower edge ('1', '2-5', ..., 'over 100'), not in the order snapshots met them
  const lowerEdge = (label: string) =>
    label.startsWith('over ') ? Number(label.slice(5)) + 1 : Number.parseInt(label, 10);
  const degreeTable: DataTable = {
    columns: ['triples added + removed', 'changes'],
    rows: [...degree].sort(([a], [b]) => lowerEdge(a) - lowerEdge(b)),
  };
  const levels = trend.flatMap((s) =>
    Object.entries(s.digest.levels).map(([level, n]) => ({
      at: s.startedAt,
      series: `level ${level} (${2 ** Number(level)}x a week)`,
      value: n,
    })),
  );
  const charts: Chart[] = [
    await timeChart(
      {
        id: 'documents',
        title: 'Documents per weekly snapshot',
        summary: 'Documents attempted in each weekly snapshot, and how many of them returned RDF.',
        yTitle: 'documents',
      },
      [
        ...points(trend, 'attempted', (s) => s.stats.documents),
        ...points(trend, 'returned RDF', (s) => s.digest.available),
      ],
      ticks,
    ),
    await timeChart(
      {
        id: 'statements',
        title: 'Statements per weekly snapshot',
        summary: 'Distinct statements (quads) published in each weekly snapshot.',
        yTitle: 'statements',
      },
      points(trend, 'statements', (s) => s.stats.statements),
      ticks,
    ),
    await timeChart(
      {
        id: 'plds',
        title: 'Pay-level domains per weekly snapshot',
        summary: 'Pay-level domains crawled in each weekly snapshot, and those seen for the first time.',
        yTitle: 'PLDs',
      },
      [...points(trend, 'PLDs', (s) => s.stats.plds.total), ...points(trend, 'new PLDs', (s) => s.newPlds)],
      ticks,
    ),
    await timeChart(
      {
        id: 'availability',
        title: 'Availability per snapshot',
        summary:
          'Share of attempted documents that returned RDF, per snapshot, weekly and interval crawls apart.',
        yTitle: 'returned RDF',
        share: true,
      },
      byKind((s) => share(s.digest.available, s.stats.documents)),
      ticks,
    ),
    await timeChart(
      {
        id: 'changed',
        title: 'Share of documents changed',
        summary:
          'Of the documents that could be compared with their previous observation, the share whose content changed, per snapshot.',
        yTitle: 'changed',
        share: true,
      },
      byKind((s) => share(s.stats.changes.changed, s.stats.changes.changed + s.stats.changes.unchanged)),
      ticks,
    ),
    await barChart(
      {
        id: 'change-frequency',
        title: 'Change frequency of kernel documents',
        summary:
          'Kernel documents by their estimated content changes a week, over all their observations (weekly and re-visits).',
        yTitle: 'kernel documents',
      },
      history.changeFrequency,
    ),
    await stackedTimeChart(
      {
        id: 'levels',
        title: 'Re-visit levels over time',
        summary:
          'Kernel documents per re-visit level after each weekly snapshot; higher levels are re-visited more often.',
        yTitle: 'kernel documents',
      },
      levels,
      ticks,
    ),
    await barChart(
      {
        id: 'change-degree',
        title: 'Degree of change',
        summary: 'Content changes over all snapshots by the number of triples added plus removed.',
        yTitle: 'changes',
      },
      degreeTable,
    ),
    await barChart(
      {
        id: 'availability-distribution',
        title: 'Availability of documents',
        summary: 'Documents by the share of their attempts, over all snapshots, that returned RDF.',
        yTitle: 'documents',
      },
      history.availability,
    ),
    await barChart(
      {
        id: 'lifespan',
        title: 'Lifespan of documents',
        summary: 'Documents by the time between their first and last observation.',
        yTitle: 'documents',
      },
      history.lifespan,
    ),
    await statementsChangedChart(snapshots),
  ];
  return Object.fromEntries(charts.map((c) => [c.id, c]));
}
