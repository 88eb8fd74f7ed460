import type { CrawlConfig, WarcPointer } from '../core/index.ts';
import { SOFTWARE_NAME, SOFTWARE_VERSION } from '../core/index.ts';
import type { ExchangeObserver, ExchangeRecord } from '../web/index.ts';
import { openWarcFiles, type WarcFiles } from './warc-files.ts';
import { exchangeMembers, type WarcInfo, warcinfoMember } from './warc-records.ts';

/** Where a crawl's archive goes. */
export interface CrawlArchiveOptions {
  /** The folder of the WARC files (in the crawl's run folder). */
  readonly dir: string;
  /** Files are named `<prefix>-<NNNNN>.warc.gz`. */
  readonly prefix: string;
  readonly config: CrawlConfig;
  /** Clock time of the warcinfo records. */
  readonly now: () => number;
}

/** The WARC archive of one crawl: observes the fetcher's exchanges and writes them. */
export interface CrawlArchive extends ExchangeObserver {
  /**
   * Where the response record of exchange `id` lies, once it is on disk; null for no id or an
   * exchange without a response. Ask right after the fetch that made the exchange returns: the
   * archive keeps the answer for the latest exchanges only (see RETAINED).
   */
  pointerOf(id: number | null): Promise<WarcPointer | null>;
  /** The WARC file names so far, in order. */
  files(): Promise<string[]>;
  /** Waits for every write, syncs and closes; rejects if a write failed. */
  close(): Promise<void>;
}

/**
 * Pointers kept for exchanges nobody asked about yet. A fetch asks for its last exchange's pointer
 * in the same turn as that exchange is reported, so only exchanges no fetch ends with (robots.txt,
 * redirect hops, retries, contexts) are ever left: they are dropped once this many newer exist.
 */
const RETAINED = 4096;
/** Room for a record's headers and gzip's worst case around a body of the byte limit. */
const MEMBER_SLACK = 1 << 20;

/**
 * Opens (or, after a crash, resumes) the archive of a crawl. The files are opened in the background;
 * a failure to open shows at the first write and at close().
 */
export function openCrawlArchive(options: CrawlArchiveOptions): CrawlArchive {
  const { config } = options;
  const info: WarcInfo = {
    software: `${SOFTWARE_NAME}/${SOFTWARE_VERSION}`,
    userAgent: config.userAgent,
    configuration: JSON.stringify(config),
  };
  const largestBody = Math.max(config.maxBytes, config.robotsMaxBytes);
  const opened: Promise<WarcFiles> = openWarcFiles({
    dir: options.dir,
    prefix: options.prefix,
    maxFileBytes: config.warcFileBytes,
    maxMemberBytes: largestBody + Math.ceil(largestBody / 64) + MEMBER_SLACK,
    header: (filename) => warcinfoMember(filename, info, options.now()),
  });
  opened.catch(() => {});
  const pending = new Map<number, Promise<WarcPointer | null>>();
  const inFlight = new Set<Promise<unknown>>();
  let firstFailure: unknown = null;
  // records are serialised concurrently but appended in the order the exchanges ended
  let turn: Promise<void> = Promise.resolve();

  async function archive(record: ExchangeRecord): Promise<WarcPointer | null> {
    const serialised = exchangeMembers(record);
    const previous = turn;
    let next!: () => void;
    turn = new Promise((resolve) => {
      next = resolve;
    });
    let appended: Promise<WarcPointer[]> | null = null;
    try {
      const members = await serialised;
      const files = await opened;
      await previous;
      if (members !== null) {
        appended = files.append(members.request ? [members.response, members.request] : [members.response]);
      }
    } finally {
      next();
    }
    return appended === null ? null : (await appended)[0];
  }

  return {
    exchanged(record) {
      const pointer = archive(record);
      inFlight.add(pointer);
      // nobody may ever ask for this one: the failure is kept for close() instead of going unhandled
      pointer
        .catch((error) => {
          firstFailure ??= error;
        })
        .finally(() => inFlight.delete(pointer));
      pending.set(record.id, pointer);
      pending.delete(record.id - RETAINED);
    },
    async pointerOf(id) {
      if (id === null) return null;
      const pointer = pending.get(id);
      pending.delete(id);
      return pointer ?? null;
    },
    files: async () => (await opened).files(),
    async close() {
      await Promise.allSettled(inFlight);
      await (await opened).close();
      if (firstFailure !== null) throw firstFailure;
    },
  };
}
