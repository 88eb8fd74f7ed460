import type { Clock, CrawlConfig } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import type { ContextLoader } from '../rdf/index.ts';
import { createFetcher, type Fetcher } from '../web/index.ts';
import type { CrawlFetcher } from './crawl.ts';

/** A crawl's fetcher plus the JSON-LD context loader bound to it; close when the crawl ends. */
export interface CrawlTools {
  readonly fetcher: CrawlFetcher;
  readonly loadContext: ContextLoader;
  /** The web stage's fetcher underneath (per-PLD statistics). */
  readonly web: Fetcher;
  close(): Promise<void>;
}

/**
 * Remote JSON-LD contexts are fetched through the crawl's own fetcher, so they obey robots.txt
 * and politeness like every other request, and each is fetched once per crawl.
 */
function contextLoader(web: Fetcher): ContextLoader {
  const cache = new Map<string, Promise<unknown>>();
  return (url) => {
    let pending = cache.get(url);
    if (!pending) {
      pending = web.fetchContext(url).then((result) => {
        if (result.error || !result.body) {
          throw new ObservatoryError('parse', `JSON-LD context ${url}: ${result.error ?? 'empty'}`);
        }
        return JSON.parse(result.body.toString('utf8')) as unknown;
      });
      cache.set(url, pending);
    }
    return pending;
  };
}

/** Builds the fetcher and context loader of one crawl from its config. */
export function createCrawlTools(config: CrawlConfig, clock: Clock): CrawlTools {
  const web = createFetcher(config, clock);
  return {
    fetcher: {
      fetchDocument: (url, signal, claim) => web.fetchDocument(url, signal, claim),
      readyAt: (pld) => web.gate.readyAt(pld),
      delayFor: (pld) => web.gate.delayOf(pld),
    },
    loadContext: contextLoader(web),
    web,
    close: () => web.close(),
  };
}
