import { type Clock, type CrawlConfig, createProgress, type Logger, recordedConfig } from '../core/index.ts';
import { readJournalDocuments } from '../crawl/index.ts';
import { expansionRunName, linkSnapshotTables, listSnapshots, publishSnapshot } from '../snapshot/index.ts';
import type { ExpansionCrawl } from './expansion.ts';
import { publishedConfig } from './published-config.ts';

/** How the expansion crawled: recorded in each of its snapshots' manifests. */
interface ExpansionSetup {
  readonly config: CrawlConfig;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What the expansion's crawls are, as every one of its snapshots records it. */
interface ExpansionPlan {
  readonly seeds: number;
  readonly hops: number;
}

/**
 * Publishes a finished crawl of the expansion as the snapshot `<out>/<crawl.name>` of kind
 * `expand`. Its input (journal, times, config) is the same on a rerun, so a crawl published
 * before is found published and left as it is; `announce` hears of each folder published now.
 */
export function expansionPublisher(
  out: string,
  setup: ExpansionSetup,
  plan: ExpansionPlan,
  announce?: (folder: string) => void,
) {
  const { config, clock, logger } = setup;
  return async (crawl: ExpansionCrawl): Promise<void> => {
    // a rerun passes every finished crawl again: one listed under its name with its times is this
    // crawl's, and is not staged again only to find its fingerprint equal (minutes for a large
    // crawl); its tables/ links are made again, as a publish that finds its folder published does
    const listed = (await listSnapshots(out)).find((e) => e.name === crawl.name);
    const iso = (ms: number) => new Date(ms).toISOString();
    if (listed?.startedAt === iso(crawl.startedAt) && listed.endedAt === iso(crawl.endedAt)) {
      await linkSnapshotTables(out, crawl.name, 'expand');
      return;
    }
    const run = {
      name: crawl.name,
      kind: 'expand' as const,
      startedAt: crawl.startedAt,
      endedAt: crawl.endedAt,
    };
    const published = await publishSnapshot({
      root: out,
      ...run,
      // a publish killed after it put the folder in place, rerun with other options: completed
      // with the config its manifest recorded, not refused as another crawl's forever
      config: (await publishedConfig(out, run)) ?? {
        ...recordedConfig(config),
        plan: { maxDepth: plan.hops, maxDocuments: null, maxRounds: crawl.maxRounds },
      },
      expansion: {
        run: expansionRunName(crawl.runStartedAt),
        crawl: crawl.crawl,
        of: crawl.of,
        hops: plan.hops,
        seeds: plan.seeds,
      },
      documents: () => readJournalDocuments(crawl.dir, { logger }),
      ...(crawl.archive ? { archive: crawl.archive } : {}),
      clock,
      log: logger,
      progress: createProgress(`publish ${crawl.name} %`, clock, { logger }),
    });
    if (!published.alreadyPublished) announce?.(published.folder);
  };
}
