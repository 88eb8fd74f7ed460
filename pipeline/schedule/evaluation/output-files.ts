import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type OwnedFolder, prepareOwnedFolder } from '../../core/index.ts';
import { BUCKETS } from './buckets.ts';
import { monthlyChart, tradeoffChart } from './chart.ts';
import type { Comparison } from './comparison.ts';
import type { Evaluation } from './evaluate.ts';
import { monthlyCsv, monthlyRows, resultsCsv } from './report.ts';
import { precision, recall } from './tally.ts';

/** The comparison as plain data for results.json. */
function comparisonJson(comparison: Comparison) {
  return {
    rows: comparison.rows.map((row) => ({
      published: row.published.name,
      downloads: row.published.overall.downloads,
      recall: recall(row.published.overall),
      challenger: {
        scale: row.matched.scale,
        downloads: row.matched.result.overall.downloads,
        recall: recall(row.matched.result.overall),
        precision: precision(row.matched.result.overall),
      },
      buckets: row.buckets,
    })),
    sweep: comparison.sweep.map((p) => ({
      scale: p.scale,
      downloads: p.result.overall.downloads,
      recall: recall(p.result.overall),
      buckets: p.result.buckets.map((t, b) => ({
        bucket: BUCKETS[b].name,
        downloads: t.downloads,
        recall: recall(t),
      })),
    })),
  };
}

/** Marks a folder as `observatory evaluate --out`'s own (core/output-folder.ts). */
export const EVALUATION_MARKER = '.observatory-evaluate';

/**
 * Writes an evaluation into the claimed folder, emptied first: results.csv (per strategy and
 * bucket), monthly.csv, results.json (everything, the comparison and the oracle bound included),
 * monthly.svg and tradeoff.svg. Returns the paths.
 */
export async function writeEvaluationFiles(
  folder: OwnedFolder,
  evaluation: Evaluation,
  comparison: Comparison | null,
  challenger: string,
  oracle: Comparison | null = null,
): Promise<string[]> {
  await prepareOwnedFolder(folder, { empty: true });
  const dir = folder.path;
  const files: Record<string, string> = {
    'results.csv': resultsCsv(evaluation),
    'monthly.csv': monthlyCsv(evaluation),
    'results.json': `${JSON.stringify(
      {
        settings: evaluation.settings,
        documents: evaluation.documents,
        buckets: BUCKETS.map((b) => b.name),
        results: evaluation.results.map((r) => ({ name: r.name, overall: r.overall, buckets: r.buckets })),
        monthly: monthlyRows(evaluation),
        challenger,
        comparison: comparison ? comparisonJson(comparison) : null,
        oracle: oracle ? comparisonJson(oracle) : null,
      },
      null,
      1,
    )}\n`,
    'monthly.svg': await monthlyChart(evaluation),
    'tradeoff.svg': await tradeoffChart(evaluation, comparison, challenger),
  };
  const paths: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await writeFile(path, text);
    paths.push(path);
  }
  return paths;
}
