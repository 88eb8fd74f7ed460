import type { TopLevelSpec } from 'vega-lite';
import { renderVegaLite } from '../core/index.ts';
import type { Chart, DataTable } from './portal-data.ts';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * The sizes a chart is drawn at. SVG text scales with the chart, so one drawing cannot be
 * readable both on a phone and on a desktop: `wide` (the plot area, axes around it) is shown from
 * tablet width up, where it is scaled to at least 0.94 (text >= 11 px); `narrow` is the whole
 * drawing at about a phone's width, its legend below, shown (and scaled near 1) on phones.
 * `barWidth` is a bar chart's plot area; its labels (at most `labelLimit`) and axis come on top.
 * Without a canvas Vega estimates a label's width as 0.8 x characters x font size, and cuts what
 * passes `labelLimit` ("1 to <4 wee…"), so the limits fit the bucket labels of history.ts.
 * Site/src/layouts/Page.astro switches between them at the same width, CHART_BREAKPOINT_REM.
 */
const SIZES = {
  wide: { width: 560, height: 220, font: 12, labelLimit: 160, barWidth: 400, legend: 'right' },
  narrow: { width: 330, height: 260, font: 13, labelLimit: 170, barWidth: 140, legend: 'bottom' },
} as const;
type Size = (typeof SIZES)[keyof typeof SIZES];

/** Below this viewport width (rem) the site shows the narrow drawing (see SIZES). */
export const CHART_BREAKPOINT_REM = 42;

const config = (size: Size) => ({
  font: 'system-ui, sans-serif',
  axis: { labelFontSize: size.font, titleFontSize: size.font },
  // one entry a line: a row of long entries below a phone's chart runs off its edge
  legend: {
    labelFontSize: size.font,
    titleFontSize: size.font,
    orient: size.legend,
    labelLimit: 260,
    columns: 1,
  },
});

/**
 * How much larger than it is drawn a chart may be shown. SVG text scales with its drawing, and each
 * drawing is as wide as its marks and labels make it (a short bar chart 456 px, a faceted one 929):
 * stretched to the column, the bar chart's text was 21-26 px beside line charts' 13-16. Shown at
 * most this much larger, every chart's text is within a few percent of one size on a screen.
 */
const MAX_SCALE = 1.1;

/** The drawing with a `max-width` of MAX_SCALE times its own width (Page.astro stretches it to the column). */
function atMostScaled(svg: string): string {
  const width = Number(/^<svg[^>]* viewBox="[-\d.]+ [-\d.]+ ([\d.]+) /.exec(svg)?.[1]);
  return Number.isFinite(width) && width > 0
    ? svg.replace(/^<svg /, `<svg style="max-width: ${Math.round(width * MAX_SCALE)}px" `)
    : svg;
}

/**
 * Draws a chart at both sizes; both scale with the page (no fixed width or height). A `compact`
 * chart (one per PLD: hundreds of them) is drawn once, at the narrow size, and shown at most a
 * little wider than that on any screen.
 */
async function draw(
  text: ChartText,
  table: DataTable,
  spec: (size: Size, narrow: boolean) => Omit<TopLevelSpec, '$schema' | 'config'>,
): Promise<Chart> {
  const render = async (size: Size, narrow: boolean) =>
    atMostScaled(
      await renderVegaLite({ $schema: SCHEMA, config: config(size), ...spec(size, narrow) } as TopLevelSpec, {
        responsive: true,
      }),
    );
  const narrow = await render(SIZES.narrow, true);
  return {
    id: text.id,
    title: text.title,
    summary: text.summary,
    svg: text.compact ? narrow : await render(SIZES.wide, false),
    narrowSvg: text.compact ? null : narrow,
    table,
  };
}

/** An axis of counts: whole numbers only (no "0.2 documents" on a small PLD's chart). */
const COUNT_AXIS = { format: ',d', tickMinStep: 1 } as const;

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
  /** One small drawing for every screen, lines without point marks (see `draw`). */
  readonly compact?: boolean;
}

/**
 * A time axis labelled with the given instants (the snapshots' starts, as UTC dates) and nothing
 * else: Vega's own "nice" ticks would fall between snapshots ("Wed 07") and in the local time zone.
 * Labels that would overlap are dropped, so a long series shows every n-th snapshot.
 */
function timeAxis(ticks: readonly string[], narrow: boolean) {
  // at most this many labels, every k-th snapshot counted back from the latest: labels Vega would
  // hide for overlapping are still written into the SVG, and a year has 52 of them
  const distinct = [...new Set(ticks)];
  const every = Math.ceil(distinct.length / (narrow ? 4 : 6));
  const values = distinct.filter((_, i) => (distinct.length - 1 - i) % every === 0);
  return {
    field: 'at',
    type: 'temporal',
    title: 'snapshot start (UTC)',
    // padded, so that the first and last points are not cut in half by the plot's edges
    scale: { type: 'utc', padding: 8 },
    axis: {
      values: values.map((t) => Date.parse(t)),
      format: narrow ? '%b %d' : '%Y-%m-%d',
      labelAngle: 0,
      labelOverlap: true,
    },
  } as const;
}

/**
 * A series longer than this is drawn as monthly means: ten years hold 520 weekly and 8,000 interval
 * snapshots, and a line of thousands of points at 560 pixels is a smear (three years of weeks fit).
 */
const MAX_POINTS = 160;

/** Each series' points averaged per UTC calendar month, at the month's first instant. */
function monthlyMeans(points: readonly SeriesPoint[], share: boolean): SeriesPoint[] {
  const months = new Map<string, { at: string; series: string; total: number; n: number }>();
  for (const p of points) {
    const at = `${p.at.slice(0, 7)}-01T00:00:00Z`;
    const m = months.get(`${p.series}\0${at}`) ?? { at, series: p.series, total: 0, n: 0 };
    months.set(`${p.series}\0${at}`, { ...m, total: m.total + p.value, n: m.n + 1 });
  }
  return [...months.values()].map((m) => ({
    at: m.at,
    series: m.series,
    value: share ? m.total / m.n : Math.round((10 * m.total) / m.n) / 10,
  }));
}

/**
 * A chart of series over time, drawn as `mark` with its y and colour encodings, on the shared time
 * axis; its table lists every point drawn (shares in percent): every snapshot's, or when a series
 * is longer than MAX_POINTS, every month's mean, which the summary then says.
 */
function overTime(
  input: ChartText,
  all: readonly SeriesPoint[],
  ticks: readonly string[],
  layer: { mark: object; y: object; color: object },
): Promise<Chart> {
  const counts = new Map<string, number>();
  for (const p of all) counts.set(p.series, (counts.get(p.series) ?? 0) + 1);
  const monthly = Math.max(0, ...counts.values()) > MAX_POINTS;
  const points = monthly ? monthlyMeans(all, input.share ?? false) : all;
  const text = monthly
    ? { ...input, summary: `${input.summary} Drawn as monthly means of the snapshots' values.` }
    : input;
  const table: DataTable = {
    columns: [monthly ? 'month (mean over its snapshots)' : 'snapshot start', 'series', text.yTitle],
    rows: points.map((p) => [
      monthly ? p.at.slice(0, 7) : p.at,
      p.series,
      text.share ? `${(p.value * 100).toFixed(1)}%` : p.value,
    ]),
  };
  return draw(text, table, (size, narrow) => ({
    ...(narrow ? { autosize: { type: 'fit', contains: 'padding' } } : {}),
    width: size.width,
    height: size.height,
    data: { values: points.map((p) => ({ ...p })) },
    mark: layer.mark,
    encoding: { x: timeAxis(ticks, narrow), y: layer.y, color: layer.color },
  }));
}

/** A line chart over time, one line per series, its axis labelled at `ticks`; its table lists every point. */
export function timeChart(
  text: ChartText,
  points: readonly SeriesPoint[],
  ticks: readonly string[],
): Promise<Chart> {
  return overTime(text, points, ticks, {
    mark: { type: 'line', point: !text.compact },
    y: {
      field: 'value',
      type: 'quantitative',
      title: text.yTitle,
      ...(text.share ? { axis: { format: '%' }, scale: { domain: [0, 1] } } : { axis: COUNT_AXIS }),
    },
    color: { field: 'series', type: 'nominal', title: null },
  });
}

/** A horizontal bar chart of labelled counts, in the order given; its table is the data. */
export function barChart(text: ChartText, table: DataTable): Promise<Chart> {
  const values = table.rows.map((r) => ({ label: String(r[0]), value: Number(r[1]) }));
  return draw(text, table, (size) => ({
    width: size.barWidth,
    height: { step: size.font + 12 },
    data: { values },
    mark: { type: 'bar', color: '#3b6ea5' },
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: size.labelLimit } },
      x: { field: 'value', type: 'quantitative', title: text.yTitle, axis: COUNT_AXIS },
    },
  }));
}

/** A stacked area per point in time (e.g. kernel documents per re-visit level per snapshot). */
export function stackedTimeChart(
  text: ChartText,
  points: readonly SeriesPoint[],
  ticks: readonly string[],
): Promise<Chart> {
  return overTime(text, points, ticks, {
    mark: { type: 'area' },
    y: { field: 'value', type: 'quantitative', stack: true, title: text.yTitle, axis: COUNT_AXIS },
    color: { field: 'series', type: 'ordinal', title: null },
  });
}

/** One point of a chart over a number (a round, an hour, a count): its series and, optionally, its panel. */
export interface XyPoint {
  readonly x: number;
  readonly y: number;
  readonly series: string;
  /** Charts with panels draw one panel per value, stacked, each with its own y scale. */
  readonly panel?: string;
}

interface XyText extends ChartText {
  readonly xTitle: string;
  /** Both axes logarithmic (points only: a line between counts of counts means nothing). */
  readonly logLog?: boolean;
}

/**
 * Series over a numeric x (a crawl's rounds or hours, or a log-log distribution), one line (or set of
 * points) per series, in panels when the points name one; `table` is the data as the figure's CSV
 * gives it.
 */
export function xyChart(text: XyText, points: readonly XyPoint[], table: DataTable): Promise<Chart> {
  const axis = (title: string | null) =>
    text.logLog ? { title, type: 'quantitative', scale: { type: 'log' } } : { title, type: 'quantitative' };
  const panels = [...new Set(points.flatMap((p) => (p.panel === undefined ? [] : [p.panel])))];
  return draw(text, table, (size, narrow) => {
    const layer = {
      // panels carry their names on the left: on a phone the plot gives way, so the text keeps its size
      width: panels.length > 0 && narrow ? size.width - 50 : size.width,
      height: panels.length > 0 ? Math.round(size.height * 0.6) : size.height,
      mark: text.logLog ? { type: 'point', filled: true } : { type: 'line', point: true },
      encoding: {
        x: { field: 'x', ...axis(text.xTitle), axis: text.logLog ? {} : COUNT_AXIS },
        // in panels, each panel's header names what its y axis counts
        y: {
          field: 'y',
          ...axis(panels.length > 0 ? null : text.yTitle),
          axis: text.logLog ? {} : COUNT_AXIS,
        },
        color: { field: 'series', type: 'nominal', title: null },
      },
    };
    const values = points.map((p) => ({ ...p }));
    if (panels.length === 0)
      return {
        // fitted, a log axis's title lands left of the drawing (Vega sizes its labels without a canvas)
        ...(narrow && !text.logLog ? { autosize: { type: 'fit', contains: 'padding' } } : {}),
        data: { values },
        ...layer,
      };
    return {
      data: { values },
      facet: {
        row: {
          field: 'panel',
          type: 'nominal',
          title: null,
          sort: panels,
          header: { labelFontSize: size.font },
        },
      },
      spec: layer,
      resolve: { scale: { y: 'independent' } },
    };
  });
}
