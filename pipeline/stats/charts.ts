import type { TopLevelSpec } from 'vega-lite';
import { renderVegaLite } from '../core/index.ts';
import type { Chart, DataTable } from './portal-data.ts';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const WIDTH = 560;
const HEIGHT = 220;

/** Charts scale with the page (the portal is read on phones too). */
function render(spec: TopLevelSpec): Promise<string> {
  return renderVegaLite(spec, { responsive: true });
}

/** One point of a time series: when, which series, value. */
export interface SeriesPoint {
  readonly at: string;
  readonly series: string;
  readonly value: number;
}

interface ChartText {
  readonly id: string;
  readonly title: string;
  readonly summary: string;
  readonly yTitle: string;
  /** Values are shares in 0..1 (axis in percent). */
  readonly share?: boolean;
}

/** A line chart over time, one line per series; its table lists every point. */
export async function timeChart(text: ChartText, points: readonly SeriesPoint[]): Promise<Chart> {
  const svg = await render({
    $schema: SCHEMA,
    width: WIDTH,
    height: HEIGHT,
    data: { values: points.map((p) => ({ ...p })) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'at', type: 'temporal', title: 'snapshot start (UTC)' },
      y: {
        field: 'value',
        type: 'quantitative',
        title: text.yTitle,
        ...(text.share ? { axis: { format: '%' }, scale: { domain: [0, 1] } } : {}),
      },
      color: { field: 'series', type: 'nominal', title: null },
    },
  });
  const table: DataTable = {
    columns: ['snapshot start', 'series', text.yTitle],
    rows: points.map((p) => [p.at, p.series, text.share ? `${(p.value * 100).toFixed(1)}%` : p.value]),
  };
  return { id: text.id, title: text.title, summary: text.summary, svg, table };
}

/** A horizontal bar chart of labelled counts, in the order given; its table is the data. */
export async function barChart(text: ChartText, table: DataTable): Promise<Chart> {
  const values = table.rows.map((r) => ({ label: String(r[0]), value: Number(r[1]) }));
  const svg = await render({
    $schema: SCHEMA,
    width: WIDTH - 160,
    height: { step: 22 },
    data: { values },
    mark: { type: 'bar', color: '#3b6ea5' },
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: 160 } },
      x: { field: 'value', type: 'quantitative', title: text.yTitle },
    },
  });
  return { id: text.id, title: text.title, summary: text.summary, svg, table };
}

/** A stacked bar per point in time (e.g. kernel documents per re-visit level per snapshot). */
export async function stackedTimeChart(text: ChartText, points: readonly SeriesPoint[]): Promise<Chart> {
  const svg = await render({
    $schema: SCHEMA,
    width: WIDTH,
    height: HEIGHT,
    data: { values: points.map((p) => ({ ...p })) },
    mark: { type: 'area' },
    encoding: {
      x: { field: 'at', type: 'temporal', title: 'snapshot start (UTC)' },
      y: { field: 'value', type: 'quantitative', stack: true, title: text.yTitle },
      color: { field: 'series', type: 'ordinal', title: null },
    },
  });
  const table: DataTable = {
    columns: ['snapshot start', 'series', text.yTitle],
    rows: points.map((p) => [p.at, p.series, p.value]),
  };
  return { id: text.id, title: text.title, summary: text.summary, svg, table };
}
