import { renderVegaLite as render } from '../../core/index.ts';
import type { Comparison } from './comparison.ts';
import type { Evaluation } from './evaluate.ts';
import { monthlyRows } from './report.ts';
import { precision, recall } from './tally.ts';

/** SVG: recall and precision month by month, one line per strategy. */
export function monthlyChart(evaluation: Evaluation): Promise<string> {
  const values = monthlyRows(evaluation).flatMap((r) => [
    { strategy: r.strategy, month: r.month + 1, measure: 'recall', value: r.recall },
    { strategy: r.strategy, month: r.month + 1, measure: 'precision', value: r.precision },
  ]);
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Recall and precision per month of the simulated span',
    data: { values },
    facet: { row: { field: 'measure', type: 'nominal', title: null } },
    spec: {
      width: 640,
      height: 220,
      mark: { type: 'line', point: false },
      encoding: {
        x: { field: 'month', type: 'quantitative', title: 'month' },
        y: { field: 'value', type: 'quantitative', scale: { domain: [0, 1] }, title: null },
        color: { field: 'strategy', type: 'nominal' },
      },
    },
    resolve: { scale: { y: 'independent' } },
  });
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
  const points = evaluation.results.map((r) => ({
    strategy: r.name,
    downloads: r.overall.downloads,
    recall: recall(r.overall),
    precision: precision(r.overall),
  }));
  const curve = (comparison?.sweep ?? []).map((p) => ({
    scale: p.scale,
    downloads: p.result.overall.downloads,
    recall: recall(p.result.overall),
  }));
  const x = {
    field: 'downloads',
    type: 'quantitative' as const,
    scale: { type: 'log' as const },
    title: 'downloads',
  };
  const y = { field: 'recall', type: 'quantitative' as const, scale: { domain: [0, 1] }, title: 'recall' };
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Recall vs downloads',
    width: 640,
    height: 400,
    layer: [
      {
        data: { values: curve },
        mark: { type: 'line', color: '#888', point: { color: '#888' } },
        encoding: { x, y, tooltip: [{ field: 'scale', type: 'quantitative', title: `${challenger} scale` }] },
      },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, size: 80 },
        encoding: {
          x,
          y,
          color: { field: 'strategy', type: 'nominal' },
          shape: { field: 'strategy', type: 'nominal' },
        },
      },
      {
        data: { values: points },
        mark: { type: 'text', dx: 6, align: 'left', fontSize: 10 },
        encoding: { x, y, text: { field: 'strategy', type: 'nominal' } },
      },
    ],
  });
}
