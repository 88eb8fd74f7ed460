import type { Clock, CrawlConfig } from '../core/index.ts';
import { type ContextLoader, releaseParseWorkers } from '../rdf/index.ts';
import { createFetcher, type Fetcher } from '../web/index.ts';
import { contextLoader } from './context-loader.ts';
import type { CrawlFetcher } from './crawl.ts';

/** A crawl's fetcher plus the JSON-LD context loader bound to it; close when the crawl ends. */
export interface CrawlTools {
  readonly fetcher: CrawlFetcher;
  readonly loadContext: ContextLoader;
  /** The web stage's fetcher underneath (per-PLD statistics). */
  readonly web: Fetcher;
  /** Closes the fetcher's connections and ends the idle parse workers. */
  close(): Promise<void>;
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
    loadContext: contextLoader(web, config),
    web,
    // the parse workers' heaps go back to the system before a publish needs the memory
    close: async () => {
      await web.close();
      releaseParseWorkers();
    },
  };
}
