import { type CrawlConfig, crawlConfig, ObservatoryError } from '../core/index.ts';
import { corrupt } from './folder-error.ts';
import type { SnapshotManifest } from './manifest.ts';

/**
 * The settings a reader of a published folder takes from its manifest's config: the limits its
 * crawl read its bodies, redirects and JSON-LD contexts within (verify bounds the WARC records by
 * them, reparse reads within them again).
 */
const READING_SETTINGS = [
  'maxBytes',
  'robotsMaxBytes',
  'maxRedirects',
  'maxContextsPerDocument',
  'maxContextsPerCrawl',
  'parseBudgetMs',
  'parseMemoryMb',
] as const satisfies readonly (keyof CrawlConfig)[];

/**
 * The crawl configuration a published folder's manifest records, as far as its readers rely on it
 * (READING_SETTINGS), validated by the same rules as the command line's (crawlConfig) and defaulted
 * where older manifests do not hold a setting. A config that is not an object, or a setting of the
 * wrong type or out of range (`maxBytes: -1`, `parseBudgetMs: "soon"`), is `corrupt`: the crawl
 * could not have run with it. The other settings are the manifest's record and are not read.
 */
export function readingConfig(folder: string, manifest: Pick<SnapshotManifest, 'config'>): CrawlConfig {
  const recorded = manifest.config;
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) {
    throw corrupt(folder, "the manifest's config is not an object");
  }
  const settings = Object.fromEntries(
    READING_SETTINGS.filter((k) => Object.hasOwn(recorded, k)).map((k) => [k, (recorded as never)[k]]),
  );
  try {
    return crawlConfig(settings);
  } catch (error) {
    if (error instanceof ObservatoryError && error.code === 'invalid_input') {
      throw corrupt(folder, `the manifest's config is not one a crawl runs with: ${error.message}`);
    }
    throw error;
  }
}
