/**
 * What the WARC archive costs: a kernel-style crawl (every document, no links followed) of the
 * demo-size simulated Web (1,500 documents, 120 PLDs, latency scale 0.05, faults 0.5) served from
 * its own process, alternately without and with the archive, twice each. Reports WARC bytes per
 * document and per statement, and the makespan with the archive over the one without it, per pair
 * (the machine is shared: the spread of the two ratios says how far to trust them).
 */
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warcFilesIn } from '../../pipeline/archive/index.ts';
import { crawlConfig, parseResolveRule, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { createCrawlTools, runCrawl } from '../../pipeline/crawl/index.ts';
import { simTruth, startSimWebProcess } from '../commands/cli-process.ts';

const DELAY_MS = 20;
const CRAWL_DELAY_CAP_MS = 600;

/** Every document URI of the Web, from its ground truth. */
async function documentUrls(port: number): Promise<string[]> {
  return (await simTruth(port)).filter((r) => r.kind === 'document').map((r) => r.uri);
}

interface Run {
  readonly documents: number;
  readonly statements: number;
  readonly makespanMs: number;
  readonly warcBytes: number;
  readonly warcFiles: number;
}

async function crawlOnce(port: number, urls: readonly string[], warc: boolean): Promise<Run> {
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: DELAY_MS,
    crawlDelayCapMs: CRAWL_DELAY_CAP_MS,
    timeoutMs: 10_000,
    warc,
  });
  const dir = await mkdtemp(join(tmpdir(), 'warc-bench-'));
  const warcDir = join(dir, 'warc');
  const tools = createCrawlTools(config, systemClock, { dir: warcDir, prefix: 'bench' });
  const start = performance.now();
  const result = await runCrawl({
    plan: {
      seeds: urls,
      maxDepth: 0,
      maxRounds: 1,
      maxDocuments: Number.POSITIVE_INFINITY,
      segmentFor: () => 'kernel',
    },
    config,
    fetcher: tools.fetcher,
    loadContext: tools.loadContext,
    dir,
    clock: systemClock,
    logger: silentLogger,
  }).finally(() => tools.close());
  // the archive's last writes and its close are part of what it costs
  const makespanMs = performance.now() - start;
  // the files' index notes count: they are on the crawl's disk until the publish
  const files = warc ? readdirSync(warcDir) : [];
  return {
    documents: result.stats.documents,
    statements: result.stats.statements,
    makespanMs,
    warcBytes: files.reduce((sum, f) => sum + statSync(join(warcDir, f)).size, 0),
    warcFiles: warc ? warcFilesIn(warcDir).length : 0,
  };
}

/** Runs the archive benchmark and prints its table. */
export default async function (): Promise<void> {
  const server = await startSimWebProcess([
    ...['--port', '0', '--docs', '1500', '--plds', '120'],
    ...['--latency-scale', '0.05', '--faults', '0.5'],
  ]);
  try {
    const urls = await documentUrls(server.port);
    const pairs: [Run, Run][] = [];
    for (let i = 0; i < 2; i++) {
      const off = await crawlOnce(server.port, urls, false);
      pairs.push([off, await crawlOnce(server.port, urls, true)]);
    }
    process.stdout.write(
      `${urls.length} documents (demo-size simulated Web in its own process); delay ${DELAY_MS} ms, 64 slots\n\n`,
    );
    process.stdout.write(
      '| pair | documents | statements | WARC bytes | files | bytes / document | bytes / statement | makespan without | with | with / without |\n',
    );
    process.stdout.write('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n');
    pairs.forEach(([off, on], i) => {
      process.stdout.write(
        `| ${i + 1} | ${on.documents} | ${on.statements} | ${on.warcBytes} | ${on.warcFiles} | ${(on.warcBytes / on.documents).toFixed(0)} | ${(on.warcBytes / on.statements).toFixed(1)} | ${(off.makespanMs / 1000).toFixed(1)} s | ${(on.makespanMs / 1000).toFixed(1)} s | ${(on.makespanMs / off.makespanMs).toFixed(2)} |\n`,
      );
    });
    process.stdout.write(
      `\npeak RSS of the crawler process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`,
    );
  } finally {
    server.stop();
  }
}
