import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { barChart, stackedTimeChart, timeChart } from '../../pipeline/stats/charts.ts';
import { LIFESPAN_BUCKET } from '../../pipeline/stats/history.ts';

const TEXT = { id: 'x', title: 'Test', summary: 'A test chart.', yTitle: 'documents' };
const DAY = 86_400_000;

/** Weekly snapshots starting on Mondays (a few ms after midnight, as crawls start), for `weeks` weeks. */
function mondays(weeks: number): string[] {
  return Array.from({ length: weeks }, (_, i) =>
    new Date(Date.UTC(2026, 0, 5) + i * 7 * DAY + 3).toISOString(),
  );
}

/** The labels of the x axis of an SVG drawn by Vega (its first axis group titled for the x axis). */
function xLabels(svg: string): string[] {
  const axis = svg.split('aria-label="X-axis')[1]?.split('aria-label="Y-axis')[0] ?? '';
  const labels = axis.split('role-axis-label')[1]?.split('role-axis-title')[0] ?? '';
  return [...labels.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
}

const short = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', { month: 'short', day: '2-digit', timeZone: 'UTC' });

for (const weeks of [1, 3, 10, 52]) {
  test(`a time axis over ${weeks} weekly snapshots labels snapshot dates only, the latest always`, async () => {
    const starts = mondays(weeks);
    const points = starts.flatMap((at, i) => [
      { at, series: 'attempted', value: 100 + i },
      { at, series: 'returned RDF', value: 90 + i },
    ]);
    for (const chart of [
      await timeChart(TEXT, points, starts),
      await stackedTimeChart(TEXT, points, starts),
    ]) {
      const wide = xLabels(chart.svg);
      const narrow = xLabels(chart.narrowSvg ?? '');
      assert.ok(wide.length >= Math.min(weeks, 5), `wide labels ${wide}`);
      assert.ok(narrow.length >= Math.min(weeks, 3), `narrow labels ${narrow}`);
      for (const label of wide)
        assert.ok(
          starts.some((s) => s.startsWith(label)),
          `wide label ${label}`,
        );
      for (const label of narrow)
        assert.ok(
          starts.some((s) => short(s) === label),
          `narrow label ${label}`,
        );
      assert.equal(wide.at(-1), starts.at(-1)?.slice(0, 10));
      assert.deepEqual(
        chart.table.rows,
        points.map((p) => [p.at, p.series, p.value]),
      );
    }
  });
}

test('a compact chart is one drawing, at the narrow size', async () => {
  const starts = mondays(3);
  const chart = await timeChart(
    { ...TEXT, compact: true },
    starts.map((at) => ({ at, series: 'attempted', value: 1 })),
    starts,
  );
  assert.equal(chart.narrowSvg, null);
  assert.match(chart.svg, /viewBox="0 0 330 /);
});

test('bar charts are drawn at both sizes with their table as data', async () => {
  const table = {
    columns: ['bucket', 'documents'],
    rows: [
      ['never', 3],
      ['always', 5],
    ] as const,
  };
  const chart = await barChart(TEXT, { columns: table.columns, rows: table.rows.map((r) => [...r]) });
  assert.ok(chart.narrowSvg?.includes('never') && chart.svg.includes('always'));
  assert.deepEqual(chart.table.rows, [
    ['never', 3],
    ['always', 5],
  ]);
});

test('a chart of shares lists them in percent in its table', async () => {
  const starts = mondays(2);
  const chart = await timeChart(
    { ...TEXT, share: true },
    starts.map((at, i) => ({ at, series: 'weekly', value: [0.5, 0.123][i] })),
    starts,
  );
  assert.deepEqual(
    chart.table.rows.map((r) => r[2]),
    ['50.0%', '12.3%'],
  );
});

// the lifespan buckets' labels state their edges exactly: 28 days is four weeks, not "1-6 months"
const LIFESPANS: ReadonlyArray<readonly [days: number, label: string]> = [
  [0, 'under 1 day'],
  [0.99, 'under 1 day'],
  [1, '1 day to <1 week'],
  [6.99, '1 day to <1 week'],
  [7, '1 to <4 weeks'],
  [27.99, '1 to <4 weeks'],
  [28, '4 to <26 weeks'],
  [181.99, '4 to <26 weeks'],
  [182, '26 weeks or more'],
];

test('a series of more than 160 points is drawn and listed as monthly means, and the summary says so', async () => {
  // ten years of weeks: 520 points of the value 2 on even weeks and 4 on odd ones, and one short series
  const starts = mondays(520);
  const points = [
    ...starts.map((at, i) => ({ at, series: 'weekly', value: i % 2 === 0 ? 2 : 4 })),
    { at: starts[0], series: 'once', value: 7 },
  ];
  const chart = await timeChart(TEXT, points, starts);
  assert.match(chart.summary, /^A test chart\. Drawn as monthly means/);
  assert.deepEqual(chart.table.columns, ['month (mean over its snapshots)', 'series', 'documents']);
  const weekly = chart.table.rows.filter((r) => r[1] === 'weekly');
  assert.equal(weekly.length, 120);
  assert.deepEqual(weekly[0], ['2026-01', 'weekly', 3]); // four Mondays: 2 4 2 4
  assert.deepEqual(weekly[2], ['2026-03', 'weekly', 2.8]); // five: 2 4 2 4 2
  assert.deepEqual(
    chart.table.rows.filter((r) => r[1] === 'once'),
    [['2026-01', 'once', 7]],
  );
  const short = await timeChart(TEXT, points.slice(0, 160), starts);
  assert.equal(short.table.rows.length, 160);
  assert.equal(short.summary, TEXT.summary);
});

test('lifespan buckets put every lifespan under the label that describes it', async () => {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    const values = LIFESPANS.map(([d]) => `(${d})`).join(', ');
    const rows = (
      await connection.runAndReadAll(
        `SELECT d, ${LIFESPAN_BUCKET} FROM (VALUES ${values}) AS t(d) ORDER BY d`,
      )
    ).getRows();
    assert.deepEqual(
      rows.map(([d, label]) => [Number(d), label]),
      LIFESPANS.map(([d, label]) => [d, label]),
    );
  } finally {
    connection.closeSync();
    db.closeSync();
  }
});
