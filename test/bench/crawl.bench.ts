/**
 * Kernel-style crawl (a URL list, no links followed) of every document of a 20,000-document,
 * 300-PLD simulated Web served from its own process, once per policy, with delays scaled down
 * 100x (2 s -> 20 ms, Crawl-delay cap 60 s -> 600 ms). Reports makespan against the politeness
 * lower bound (max over PLDs of requests x that PLD's delay), and against a bound that adds each
 * request's service time on that PLD (the gate counts the delay from the response, so that the
 * gap holds at the server: one PLD can go no faster than delay + time to answer per request),
 * documents/s and peak RSS. Latencies are scaled to 1% so that the delay dominates, as 2 s does
 * against the real Web's typical answer times.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  crawlConfig,
  POLICY_NAMES,
  type PolicyName,
  parseResolveRule,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import { createCrawlTools, runCrawl } from '../../pipeline/crawl/index.ts';
import { simTruth, startSimWebProcess } from '../commands/cli-process.ts';

const DOCS = 20_000;
const PLDS = 300;
const LATENCY_SCALE = 0.01;
const FAULTS = 1;
const DELAY_MS = 20;
const CRAWL_DELAY_CAP_MS = 600;

function startServer() {
  return startSimWebProcess([
    ...['--port', '0', '--docs', String(DOCS), '--plds', String(PLDS)],
    ...['--latency-scale', String(LATENCY_SCALE), '--faults', String(FAULTS)],
  ]);
}

/** Every document URI of the Web, from its ground truth. */
async function documentUrls(port: number): Promise<string[]> {
  return (await simTruth(port)).filter((r) => r.kind === 'document').map((r) => r.uri);
}

interface Run {
  readonly policy: PolicyName;
  readonly documents: number;
  readonly requests: number;
  readonly makespanMs: number;
  readonly boundMs: number;
  /** Max over PLDs of the sum over its requests of (delay + service time). */
  readonly serviceBoundMs: number;
  readonly busiest: string;
}

async function crawlOnce(port: number, urls: readonly string[], policy: PolicyName): Promise<Run> {
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: DELAY_MS,
    crawlDelayCapMs: CRAWL_DELAY_CAP_MS,
    timeoutMs: 10_000,
    policy,
  });
  const tools = createCrawlTools(config, systemClock);
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
    dir: await mkdtemp(join(tmpdir(), `crawl-bench-${policy}-`)),
    clock: systemClock,
    logger: silentLogger,
  });
  const makespanMs = performance.now() - start;
  let boundMs = 0;
  let serviceBoundMs = 0;
  let busiest = '';
  let requests = 0;
  for (const [pld, stats] of tools.web.stats()) {
    requests += stats.requests;
    const bound = stats.requests * tools.fetcher.delayFor(pld);
    if (bound > boundMs) [boundMs, busiest] = [bound, `${pld} (${stats.requests} requests)`];
    serviceBoundMs = Math.max(serviceBoundMs, bound + stats.serviceMs);
  }
  await tools.close();
  return {
    policy,
    documents: result.stats.documents,
    requests,
    makespanMs,
    boundMs,
    serviceBoundMs,
    busiest,
  };
}

/** Runs the crawl benchmark and prints its table. */
export default async function (): Promise<void> {
  const server = await startServer();
  try {
    const urls = await documentUrls(server.port);
    const runs: Run[] = [];
    for (const policy of POLICY_NAMES) runs.push(await crawlOnce(server.port, urls, policy));
    process.stdout.write(
      `${urls.length} documents, ${PLDS} PLDs (+ scenario PLDs); simweb in its own process, latency scale ${LATENCY_SCALE}, faults ${FAULTS}; delay ${DELAY_MS} ms, Crawl-delay cap ${CRAWL_DELAY_CAP_MS} ms, 64 slots, perPld 1\n\n`,
    );
    process.stdout.write(
      '| policy | documents | requests | makespan | politeness bound | makespan / bound | bound with service time | makespan / that bound | documents/s | busiest PLD |\n',
    );
    process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n');
    for (const r of runs) {
      process.stdout.write(
        `| ${r.policy} | ${r.documents} | ${r.requests} | ${(r.makespanMs / 1000).toFixed(1)} s | ${(r.boundMs / 1000).toFixed(1)} s | ${(r.makespanMs / r.boundMs).toFixed(2)} | ${(r.serviceBoundMs / 1000).toFixed(1)} s | ${(r.makespanMs / r.serviceBoundMs).toFixed(2)} | ${((r.documents * 1000) / r.makespanMs).toFixed(0)} | ${r.busiest} |\n`,
      );
    }
    process.stdout.write(
      `\npeak RSS of the crawler process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`,
    );
  } finally {
    server.stop();
  }
}
