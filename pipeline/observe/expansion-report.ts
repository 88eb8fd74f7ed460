import { writeFileAtomic } from '../core/index.ts';
import type { ExpansionResult } from './expansion.ts';

/** The files `writeExpansion` writes: the kernel list, the report and the report for people beside it. */
export function expansionFiles(files: { kernel: string; report: string }): string[] {
  return [files.kernel, files.report, markdownReport(files.report)];
}

function markdownReport(report: string): string {
  return `${report.replace(/\.json$/, '')}.md`;
}

/** Writes the kernel list and the expansion report (JSON and Markdown) next to it. */
export async function writeExpansion(
  result: ExpansionResult,
  files: { kernel: string; report: string },
  meta: { seeds: number; startedAt: string; endedAt: string },
): Promise<void> {
  const header = `# kernel: ${result.kernel.length} URIs on ${result.plds.length} PLDs, expanded from ${meta.seeds} seeds at ${meta.startedAt}\n`;
  await writeFileAtomic(files.kernel, header + result.kernel.join('\n') + '\n');
  const report = {
    ...meta,
    kernel: result.kernel.length,
    kernelPlds: result.plds.length,
    crawls: result.crawls,
    plds: result.plds,
  };
  await writeFileAtomic(files.report, `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(markdownReport(files.report), expansionMarkdown(result, meta));
}

/** The expansion report for people: per crawl and round, the paper's Figures 2-4 as a table. */
function expansionMarkdown(result: ExpansionResult, meta: { seeds: number; startedAt: string }): string {
  const rows = result.crawls.flatMap((crawl, i) =>
    crawl.rounds.map(
      (r) =>
        `| ${i + 1} | ${r.round} | ${r.documents} | ${r.rdfDocuments} | ${r.statements} | ${r.plds} | ${r.newPlds} |`,
    ),
  );
  const top = result.plds.slice(0, 25).map((p) => `| ${p.pld} | ${p.documents} |`);
  return [
    `# Kernel expansion, ${meta.startedAt}`,
    '',
    `${meta.seeds} core seeds, ${result.crawls.length} crawls: kernel of ${result.kernel.length} URIs on ${result.plds.length} PLDs.`,
    '',
    '| crawl | round | documents | RDF documents | statements | PLDs | new PLDs |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    '## Kernel URIs per PLD (top 25)',
    '',
    '| PLD | URIs |',
    '| --- | ---: |',
    ...top,
    '',
  ].join('\n');
}
