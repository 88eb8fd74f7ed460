import { BUCKETS } from './buckets.ts';
import type { Comparison } from './comparison.ts';
import type { Evaluation } from './evaluate.ts';
import { precision, recall, type Tally } from './tally.ts';

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const fixed = (x: number) => x.toFixed(3);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
const cell = (t: Tally) => (t.documents === 0 ? '-' : `${recall(t).toFixed(2)} / ${precision(t).toFixed(2)}`);

/** Which buckets have documents: tables leave the empty ones out. */
function usedBuckets(evaluation: Evaluation): number[] {
  return BUCKETS.map((_, b) => b).filter((b) => evaluation.results.some((r) => r.buckets[b].documents > 0));
}

/**
 * The reproduction table (Markdown, readable on a terminal): per strategy overall recall,
 * precision and downloads, then recall / precision per dynamicity bucket.
 */
export function resultsTable(evaluation: Evaluation): string {
  const used = usedBuckets(evaluation);
  const first = evaluation.results[0];
  const header = [
    'strategy',
    'recall',
    'precision',
    'downloads',
    ...used.map((b) => `${BUCKETS[b].name} (${first?.buckets[b].documents ?? 0})`),
  ];
  const rows = evaluation.results.map((r) => [
    r.name,
    fixed(recall(r.overall)),
    fixed(precision(r.overall)),
    String(r.overall.downloads),
    ...used.map((b) => cell(r.buckets[b])),
  ]);
  return table(header, rows);
}

/** The margin the per-bucket goal asks for (issue 17: at least +0.03 recall). */
export const BUCKET_MARGIN = 0.03;

/**
 * The comparison table: each published strategy against the challenger at the same downloads;
 * per bucket, how many the challenger wins at all and by at least BUCKET_MARGIN, and its worst margin.
 */
export function comparisonTable(comparison: Comparison, challenger: string): string {
  const header = [
    'published',
    'downloads',
    'recall',
    `${challenger} downloads`,
    `${challenger} recall`,
    'gain',
    'buckets won (per-bucket curve)',
    `won by +${BUCKET_MARGIN}`,
    'worst bucket',
  ];
  const rows = comparison.rows.map((row) => {
    const ours = row.matched.result.overall;
    const judged = row.buckets.filter((b) => b.challengerRecall !== null);
    const won = judged.filter((b) => b.challengerRecall! >= b.recall);
    const lost = judged.filter((b) => b.challengerRecall! < b.recall).map((b) => b.bucket);
    const margins = judged.map((b) => b.challengerRecall! - b.recall);
    const clear = margins.filter((m) => m >= BUCKET_MARGIN - 1e-9).length;
    return [
      row.published.name,
      String(row.published.overall.downloads),
      fixed(recall(row.published.overall)),
      String(ours.downloads),
      fixed(recall(ours)),
      signed(recall(ours) - recall(row.published.overall)),
      `${won.length}/${judged.length}${lost.length ? ` (lost: ${lost.join(', ')})` : ''}`,
      `${clear}/${judged.length}`,
      margins.length === 0 ? '-' : signed(Math.min(...margins)),
    ];
  });
  return table(header, rows);
}

function csvRow(cells: readonly (string | number)[]): string {
  return cells
    .map((c) => (typeof c === 'string' && /[",\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : String(c)))
    .join(',');
}

/** Results as CSV: one row per strategy and bucket (bucket `all` for the whole set). */
export function resultsCsv(evaluation: Evaluation): string {
  const lines = [
    csvRow(['strategy', 'bucket', 'documents', 'changes', 'captured', 'downloads', 'recall', 'precision']),
  ];
  for (const r of evaluation.results) {
    const rows: [string, Tally][] = [
      ['all', r.overall],
      ...BUCKETS.map((b, i): [string, Tally] => [b.name, r.buckets[i]]),
    ];
    for (const [bucket, t] of rows) {
      if (t.documents === 0) continue;
      lines.push(
        csvRow([
          r.name,
          bucket,
          t.documents,
          t.changes,
          t.captured,
          t.downloads,
          fixed(recall(t)),
          fixed(precision(t)),
        ]),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Per-month rows (month 0 = the first 30 days of every document): recall and precision over time. */
export function monthlyRows(evaluation: Evaluation) {
  return evaluation.results.flatMap((r) =>
    Array.from(r.monthly.downloads, (downloads, month) => {
      const captured = r.monthly.captured[month];
      const changes = evaluation.monthlyChanges[month];
      return {
        strategy: r.name,
        month,
        downloads,
        captured,
        changes,
        recall: changes === 0 ? 1 : captured / changes,
        precision: downloads === 0 ? 0 : captured / downloads,
      };
    }),
  );
}

/** The monthly rows as CSV. */
export function monthlyCsv(evaluation: Evaluation): string {
  const rows = monthlyRows(evaluation);
  const lines = [csvRow(['strategy', 'month', 'downloads', 'captured', 'changes', 'recall', 'precision'])];
  for (const r of rows) {
    lines.push(
      csvRow([r.strategy, r.month, r.downloads, r.captured, r.changes, fixed(r.recall), fixed(r.precision)]),
    );
  }
  return `${lines.join('\n')}\n`;
}
