/**
 * What `observatory reparse` costs: a weekly snapshot (kernel only) of a simulated Web is crawled
 * and published, then rebuilt from its WARC files into another root, twice. Reports documents and
 * statements per second of the rebuild (reading every response record, decoding, parsing, hashing
 * and publishing) against the crawl that made the snapshot, and the process's peak RSS.
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockStartingAt } from '../../pipeline/core/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { reparseSnapshot } from '../../pipeline/snapshot/index.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';

const W0 = Date.UTC(2026, 0, 5);
const SIZES = [300, 1500];

async function measure(docs: number): Promise<string[]> {
  const sim = await startSimWeb({
    seed: 3,
    docs,
    plds: Math.max(20, docs / 12),
    latencyScale: 0,
    faults: 0.5,
    now: W0,
  });
  try {
    const root = mkdtempSync(join(tmpdir(), 'reparse-bench-'));
    const crawlStart = performance.now();
    const outcome = await simWeekly(sim, root, W0, rdfDocuments(sim, W0), { adaptiveRounds: 0 });
    const crawlMs = performance.now() - crawlStart;
    if (outcome.status !== 'published') throw new Error(`crawl ended ${outcome.status}`);
    const { documents, statements } = outcome.snapshot.manifest.counts;
    const lines: string[] = [];
    for (let i = 1; i <= 2; i++) {
      const start = performance.now();
      await reparseSnapshot({
        folder: outcome.snapshot.folder,
        root: mkdtempSync(join(tmpdir(), 'reparse-bench-out-')),
        clock: clockStartingAt(W0),
      });
      const ms = performance.now() - start;
      lines.push(
        `| ${docs} | ${i} | ${documents} | ${statements} | ${(crawlMs / 1000).toFixed(1)} s | ${(ms / 1000).toFixed(1)} s | ${(ms / documents).toFixed(2)} | ${Math.round(documents / (ms / 1000))} | ${Math.round(statements / (ms / 1000))} | ${(ms / crawlMs).toFixed(2)} | ${loadavg()[0].toFixed(1)} |`,
      );
    }
    return lines;
  } finally {
    sim.close();
  }
}

/** Runs the reparse benchmark and prints its table. */
export default async function (): Promise<void> {
  const rows: string[] = [];
  for (const docs of SIZES) rows.push(...(await measure(docs)));
  process.stdout.write(
    '| simulated docs | run | documents | statements | crawl + publish | reparse | ms / document | documents / s | statements / s | reparse / crawl | load (1 min) |\n',
  );
  process.stdout.write('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n');
  for (const row of rows) process.stdout.write(`${row}\n`);
  process.stdout.write(
    `\npeak RSS of the process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`,
  );
}
