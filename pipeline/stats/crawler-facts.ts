import { CRAWL_DEFAULTS, SOFTWARE_VERSION } from '../core/index.ts';
import type { SnapshotManifest } from '../snapshot/index.ts';
import type { CrawlerFacts } from './portal-data.ts';

const TEXTS = ['userAgent', 'productToken'] as const;
const NUMBERS = [
  'delayMs',
  'perPld',
  'concurrency',
  'timeoutMs',
  'maxBytes',
  'maxRedirects',
  'crawlDelayCapMs',
  'robotsTtlMs',
] as const;

/**
 * The crawler as the About page describes it: each setting as the newest weekly snapshot ran with it
 * (its manifest's config, which records the crawl's), the default where the manifest does not hold it
 * (no snapshot, or a setting older manifests did not record). The User-Agent and product token come
 * as a pair, so that the page never names one crawl's token beside another's header.
 */
export function crawlerFacts(
  manifest: Pick<SnapshotManifest, 'name' | 'softwareVersion' | 'config'> | undefined,
): CrawlerFacts {
  const recorded = (
    typeof manifest?.config === 'object' && manifest.config !== null ? manifest.config : {}
  ) as Record<string, unknown>;
  const texts = TEXTS.every((k) => typeof recorded[k] === 'string')
    ? { userAgent: recorded.userAgent as string, productToken: recorded.productToken as string }
    : { userAgent: CRAWL_DEFAULTS.userAgent, productToken: CRAWL_DEFAULTS.productToken };
  const numbers = Object.fromEntries(
    NUMBERS.map((k) => {
      const value = recorded[k];
      return [k, typeof value === 'number' && Number.isFinite(value) ? value : CRAWL_DEFAULTS[k]];
    }),
  ) as Record<(typeof NUMBERS)[number], number>;
  return {
    snapshot: manifest?.name ?? null,
    softwareVersion: manifest?.softwareVersion ?? SOFTWARE_VERSION,
    ...texts,
    ...numbers,
  };
}
