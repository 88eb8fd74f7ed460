import { type CrawlArchive, type CrawlArchiveOptions, openCrawlArchive } from '../archive/index.ts';
import type { Clock, CrawlConfig } from '../core/index.ts';
import { type ContextLoader, releaseParseWorkers } from '../rdf/index.ts';
import { createFetcher, type ExchangeObserver, type Fetcher, type GateObserver } from '../web/index.ts';
import { contextLoader } from './context-loader.ts';
import type { CrawlFetcher } from './crawl.ts';

/** A crawl's fetcher plus the JSON-LD context loader bound to it; close when the crawl ends. */
export interface CrawlTools {
  readonly fetcher: CrawlFetcher;
  readonly loadContext: ContextLoader;
  /** The web stage's fetcher underneath (per-PLD statistics). */
  readonly web: Fetcher;
  /** The crawl's WARC archive; null when config.warc is off or no archive folder was given. */
  readonly archive: CrawlArchive | null;
  /** Closes the fetcher's connections and the archive, and ends the idle parse workers. */
  close(): Promise<void>;
}

/** Where a crawl that keeps an archive writes it (docs/archive.md). */
export interface ArchiveTarget {
  /** The WARC folder, in the crawl's run folder. */
  readonly dir: string;
  /** WARC files are named `<prefix>-<NNNNN>.warc.gz`. */
  readonly prefix: string;
  /** A URL's previous observation with an archived record: its answers may be archived as revisits of it. */
  readonly earlier?: CrawlArchiveOptions['earlier'];
  /** The latest earlier observation that ended at a URL, for the answers `earlier` does not cover. */
  readonly archived?: CrawlArchiveOptions['archived'];
}

/**
 * Builds the fetcher and context loader of one crawl from its config. With `archive` (and
 * config.warc on) every exchange is archived there, and each fetch the crawl gets carries the
 * pointer of its final response record, on disk before the fetch is handed on (so before the
 * journal can name it); the answer to a fetch of a URL whose previous observation
 * `archiveTarget.earlier` gives may be archived as a revisit of that observation's record.
 * `observers` are told of every exchange too (a distributed worker keeps
 * them for the coordinator's archive); `gateObserver` of every request's moments at the gate (an
 * instrument).
 */
export function createCrawlTools(
  config: CrawlConfig,
  clock: Clock,
  archiveTarget?: ArchiveTarget,
  observers: readonly ExchangeObserver[] = [],
  gateObserver?: GateObserver,
): CrawlTools {
  const archive =
    config.warc && archiveTarget
      ? openCrawlArchive({ ...archiveTarget, config, now: () => clock.now() })
      : null;
  const web = createFetcher(config, clock, {
    observers: archive ? [archive, ...observers] : observers,
    gateObserver,
  });
  return {
    fetcher: {
      fetchDocument: async (url, signal, claim, validators, lease, answered) => {
        const release = archive?.expect(url);
        try {
          const fetched = await web.fetchDocument(url, signal, claim, validators, lease);
          answered?.(fetched);
          return archive ? { ...fetched, warc: await archive.pointerOf(fetched.responseId) } : fetched;
        } finally {
          release?.();
        }
      },
      readyAt: (pld) => web.gate.readyAt(pld),
      delayFor: (pld) => web.gate.delayOf(pld),
    },
    loadContext: contextLoader(web, config),
    web,
    archive,
    // the parse workers' heaps go back to the system before a publish needs the memory
    close: async () => {
      await web.close();
      await archive?.close();
      releaseParseWorkers();
    },
  };
}
