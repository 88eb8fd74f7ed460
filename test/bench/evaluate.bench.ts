/**
 * `npm run bench evaluate`: every strategy on ~3,000 synthetic documents x 3 years (the
 * issue's target: seconds, not minutes), per strategy and in total, plus peak memory.
 */
import {
  documentBuckets,
  evaluateStrategy,
  PAPER_BOUNDS,
  PAPER_INITIAL_INTERVAL,
  STRATEGIES,
  SYNTHETIC_KINDS,
  syntheticHistories,
  YEAR,
} from '../../pipeline/schedule/index.ts';

export default async function (): Promise<void> {
  const span = 3 * YEAR;
  let t = performance.now();
  const docs = syntheticHistories({
    perBucket: 71,
    kinds: SYNTHETIC_KINDS,
    seed: 1,
    span,
    start: Date.UTC(2020, 0, 1),
  });
  const generateMs = performance.now() - t;
  const settings = { span, bounds: PAPER_BOUNDS, initial: PAPER_INITIAL_INTERVAL };
  const buckets = documentBuckets(docs, span);
  const rows: string[] = [];
  const total = performance.now();
  for (const strategy of Object.values(STRATEGIES)) {
    t = performance.now();
    const r = evaluateStrategy(docs, strategy, settings, buckets);
    const ms = performance.now() - t;
    rows.push(
      `| ${strategy.name} | ${ms.toFixed(0)} | ${Math.round((docs.length * 1000) / ms)} | ${Math.round((r.overall.downloads * 1000) / ms)} |`,
    );
  }
  const allMs = performance.now() - total;
  process.stdout.write(`${docs.length} documents x 3 years, generated in ${generateMs.toFixed(0)} ms\n\n`);
  process.stdout.write('| strategy | ms | documents/s | observations/s |\n|---|---|---|---|\n');
  process.stdout.write(`${rows.join('\n')}\n`);
  process.stdout.write(
    `| all ${Object.keys(STRATEGIES).length} | ${allMs.toFixed(0)} | ${Math.round((docs.length * Object.keys(STRATEGIES).length * 1000) / allMs)} | |\n\n`,
  );
  process.stdout.write(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`);
}
