import type { TopLevelSpec } from 'vega-lite';
import { renderVegaLite as render } from '../../core/index.ts';
import type { Comparison } from './comparison.ts';
import type { Evaluation } from './evaluate.ts';
import { monthlyRows } from './report.ts';
import { recall } from './tally.ts';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/**
 * Text at 12 px, the portal's own charts' size (Vega's default labels are 10 px): the portal shows
 * these files as drawn, scrolling sideways on a phone rather than shrinking their text.
 */
const TEXT = 12;
const CONFIG = {
  font: 'system-ui, sans-serif',
  axis: { labelFontSize: TEXT, titleFontSize: TEXT },
  legend: { labelFontSize: TEXT, titleFontSize: TEXT },
  header: { labelFontSize: TEXT },
  title: { fontSize: TEXT + 2 },
};

/**
 * One colour per strategy that stays apart from the others for all eleven an evaluation compares
 * (Vega's default scheme has ten, several of them close on a line; the eleventh repeated the
 * first), and a dash pattern and a point shape that cycle with a period prime to the colours', so
 * that lines of close colours also differ in their dashes.
 */
const COLOURS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
  '#000000',
  '#aec7e8',
];
const DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
];
const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'triangle-right'];

/** The strategy of a mark, told apart by colour and by dash (lines) or shape (points); one legend. */
function byStrategy(names: readonly string[], mark: 'line' | 'point') {
  const field = { field: 'strategy', type: 'nominal' as const, sort: [...names] };
  return {
    color: { ...field, scale: { domain: [...names], range: COLOURS }, title: 'strategy' },
    ...(mark === 'line'
      ? { strokeDash: { ...field, scale: { domain: [...names], range: DASHES }, title: 'strategy' } }
      : { shape: { ...field, scale: { domain: [...names], range: SHAPES }, title: 'strategy' } }),
  };
}

/** One strategy's recall and precision in one month of the simulated span (monthly.csv's rows). */
export interface MonthlyPoint {
  readonly strategy: string;
  /** From 0. */
  readonly month: number;
  readonly recall: number;
  readonly precision: number;
}

/** Recall and precision month by month, one line per strategy, in two panels. */
export function monthlySpec(rows: readonly MonthlyPoint[]): TopLevelSpec {
  const names = [...new Set(rows.map((r) => r.strategy))];
  const values = rows.flatMap((r) => [
    { strategy: r.strategy, month: r.month + 1, measure: 'recall', value: r.recall },
    { strategy: r.strategy, month: r.month + 1, measure: 'precision', value: r.precision },
  ]);
  return {
    $schema: SCHEMA,
    config: CONFIG,
    title: 'Recall and precision per month of the simulated span',
    data: { values },
    facet: { row: { field: 'measure', type: 'nominal', title: null } },
    spec: {
      width: 560,
      height: 220,
      mark: { type: 'line', point: false, strokeWidth: 1.8 },
      encoding: {
        x: { field: 'month', type: 'quantitative', title: 'month' },
        y: { field: 'value', type: 'quantitative', scale: { domain: [0, 1] }, title: null },
        ...byStrategy(names, 'line'),
      },
    },
    resolve: { scale: { y: 'independent' } },
  };
}

/** SVG: recall and precision month by month, one line per strategy. */
export function monthlyChart(evaluation: Evaluation): Promise<string> {
  return render(monthlySpec(monthlyRows(evaluation)));
}

/** A strategy's overall downloads and recall, or the challenger's at one budget of its sweep. */
export interface TradeoffPoint {
  readonly strategy: string;
  readonly downloads: number;
  readonly recall: number;
}

/**
 * Recall against downloads for every strategy (a point each, told apart by colour and shape in the
 * legend: names written beside the points fell on one another where strategies score alike) and
 * the challenger's budget sweep as a grey line with a legend entry of its own.
 */
export function tradeoffSpec(
  points: readonly TradeoffPoint[],
  sweep: readonly Omit<TradeoffPoint, 'strategy'>[],
  challenger: string,
): TopLevelSpec {
  const x = {
    field: 'downloads',
    type: 'quantitative' as const,
    scale: { type: 'log' as const },
    title: 'downloads',
  };
  const y = { field: 'recall', type: 'quantitative' as const, scale: { domain: [0, 1] }, title: 'recall' };
  return {
    $schema: SCHEMA,
    config: CONFIG,
    title: 'Recall vs downloads',
    width: 560,
    height: 400,
    layer: [
      ...(sweep.length > 0
        ? [
            {
              data: { values: sweep.map((p) => ({ ...p })) },
              mark: { type: 'line' as const, color: '#888', point: { color: '#888' } },
              encoding: {
                x,
                y,
                // a legend of its own: the grey line is the challenger at other budgets
                strokeDash: {
                  datum: `${challenger} at other budgets`,
                  scale: { range: [[4, 2]] },
                  title: 'budget sweep',
                  legend: { symbolType: 'stroke', symbolStrokeColor: '#888', labelLimit: 400 },
                },
              },
            },
          ]
        : []),
      {
        data: { values: points.map((p) => ({ ...p })) },
        mark: { type: 'point' as const, filled: true, size: 90, opacity: 1 },
        encoding: { x, y, ...byStrategy([...new Set(points.map((p) => p.strategy))], 'point') },
      },
    ],
    resolve: { legend: { strokeDash: 'independent' } },
  } as TopLevelSpec;
}

/**
 * SVG: recall against downloads for every strategy evaluated (points) and the challenger's
 * budget sweep (a line): a strategy below the line captures less for what it downloads.
 */
export function tradeoffChart(
  evaluation: Evaluation,
  comparison: Comparison | null,
  challenger: string,
): Promise<string> {
  return render(
    tradeoffSpec(
      evaluation.results.map((r) => ({
        strategy: r.name,
        downloads: r.overall.downloads,
        recall: recall(r.overall),
      })),
      (comparison?.sweep ?? []).map((p) => ({
        downloads: p.result.overall.downloads,
        recall: recall(p.result.overall),
      })),
      challenger,
    ),
  );
}
