import { recordedSettings, SOFTWARE_VERSION } from '../core/index.ts';
import type { SnapshotManifest } from '../snapshot/index.ts';
import { CRAWLER_PROSE, type CrawlerFacts } from './portal-data.ts';

/**
 * The crawler as the About page describes it: each crawl option as the newest weekly snapshot ran
 * with it (its manifest's config, which records the crawl's), the default where the manifest does
 * not hold it (no snapshot, or a setting older manifests did not record), and marked as a default
 * in the page's table. The User-Agent and product token come as a pair (core/crawl-options.ts).
 */
export function crawlerFacts(
  manifest: Pick<SnapshotManifest, 'name' | 'softwareVersion' | 'config'> | undefined,
): CrawlerFacts {
  const { config, settings } = recordedSettings(manifest?.config);
  return {
    snapshot: manifest?.name ?? null,
    softwareVersion: manifest?.softwareVersion ?? SOFTWARE_VERSION,
    ...(Object.fromEntries(CRAWLER_PROSE.map((k) => [k, config[k]])) as Pick<
      CrawlerFacts,
      (typeof CRAWLER_PROSE)[number]
    >),
    settings,
  };
}
