/**
 * A weekly snapshot of the simulated Web, as the tests and benchmarks that need a published week
 * crawl it: the Web's clock set to the week's start, politeness scaled down to 1 ms, one attempt
 * per request, a kernel of every document that dereferences to RDF.
 */
import type { CrawlConfig } from '../../pipeline/core/index.ts';
import { clockStartingAt, crawlConfig, parseResolveRule, silentLogger } from '../../pipeline/core/index.ts';
import { runWeeklySnapshot, type WeeklyOutcome } from '../../pipeline/observe/index.ts';
import type { SimWeb } from '../../pipeline/simweb/index.ts';

/** Every document URI of the simulated Web that dereferences to RDF at `at`. */
export function rdfDocuments(sim: SimWeb, at: number): string[] {
  return sim
    .truth(at)
    .filter((r) => r.kind === 'document' && r.rdf)
    .map((r) => r.uri);
}

/** The crawl config that reaches the simulated Web quickly: 1 ms delay, 3 s timeout, one attempt. */
export function simCrawlConfig(sim: SimWeb, overrides: Partial<CrawlConfig> = {}): CrawlConfig {
  return crawlConfig({
    resolve: [parseResolveRule(sim.resolveRule)],
    allowPrivate: true,
    delayMs: 1,
    timeoutMs: 3000,
    maxAttempts: 1,
    ...overrides,
  });
}

/** Publishes the weekly snapshot of the week starting `at` under `root`. */
export function simWeekly(
  sim: SimWeb,
  root: string,
  at: number,
  kernel: readonly string[],
  o: { adaptiveRounds: number; config?: Partial<CrawlConfig> },
): Promise<WeeklyOutcome> {
  sim.setClock(at);
  return runWeeklySnapshot({
    root,
    config: simCrawlConfig(sim, o.config),
    logger: silentLogger,
    clock: clockStartingAt(at),
    kernel,
    adaptiveRounds: o.adaptiveRounds,
  });
}
