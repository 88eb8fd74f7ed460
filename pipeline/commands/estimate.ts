import { Command } from 'commander';
import { invalidInput, readUriList } from '../core/index.ts';
import { type CrawlEstimate, estimateCrawl, readHistoryStats } from '../schedule/index.ts';
import { addCrawlOptions, type CrawlCliOptions, crawlSetup } from './crawl-options.ts';

interface EstimateCliOptions extends CrawlCliOptions {
  urls: string;
  history: string;
  runs: string;
  json: boolean;
}

/** A duration for people: 42.0 s, 12.5 min, 3.20 h. */
export function humanDuration(ms: number): string {
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(2)} h`;
}

/** The lines `estimate` prints. */
export function estimateReport(e: CrawlEstimate, concurrency: number): string[] {
  return [
    `${e.urls} URIs on ${e.plds} PLDs (${e.unknownPlds} without history)`,
    `predicted makespan: ${humanDuration(e.p50Ms)} (P10 ${humanDuration(e.p10Ms)}, P90 ${humanDuration(e.p90Ms)})`,
    `fetch slots: ${concurrency}, busy ${(100 * e.utilisation).toFixed(0)}% of the time (${humanDuration(e.slotMs)} of slot time)`,
    'bounded by (PLD, URIs, delay, its URIs back to back):',
    ...e.bounding.map(
      (b) =>
        `  ${b.pld} ${b.docs} ${humanDuration(b.delayMs)} ${humanDuration(b.serialMs)}${b.known ? '' : ' (no history)'}`,
    ),
    `baseline (rescheduling paper): ${humanDuration(e.baseline.makespanMs)} with ${e.baseline.threads} threads`,
  ];
}

/** `observatory estimate`: how long crawling a URI list will take, from the history of earlier crawls. */
export function estimateCommand(): Command {
  const command = new Command('estimate')
    .description('predict the crawl time and fetch slots a URI list needs, from the snapshot history')
    .requiredOption('--urls <file>', 'URI list, one a line')
    .option('--history <dir>', 'snapshots folder whose recent crawls are the history', 'snapshots')
    .option('--runs <n>', 'Monte-Carlo runs (P10/P50/P90 of the makespan)', '15')
    .option('--json', 'print the estimate as JSON', false);
  return addCrawlOptions(command).action(async (o: EstimateCliOptions) => {
    const { config } = crawlSetup(o);
    const runs = Number(o.runs);
    if (!Number.isInteger(runs) || runs < 1)
      throw invalidInput('--runs', 'a whole number of at least 1', o.runs);
    const urls = await readUriList(o.urls);
    if (urls.length === 0) throw invalidInput('--urls', 'a file with at least one URI', o.urls);
    const estimate = estimateCrawl({ urls, stats: await readHistoryStats(o.history), config, runs });
    const lines = o.json ? [JSON.stringify(estimate)] : estimateReport(estimate, config.concurrency);
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}
