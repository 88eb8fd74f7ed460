import type { CrawlConfig, WarcPointer } from '../core/index.ts';
import { SOFTWARE_NAME, SOFTWARE_VERSION } from '../core/index.ts';
import type { ExchangeObserver, ExchangeRecord } from '../web/index.ts';
import { responseBehind } from './revisit.ts';
import { openWarcFiles, type WarcFiles } from './warc-files.ts';
import { type EarlierRecord, exchangeMembers, type WarcInfo, warcinfoMember } from './warc-records.ts';

/** Where a crawl's archive goes. */
export interface CrawlArchiveOptions {
  /** The folder of the WARC files (in the crawl's run folder). */
  readonly dir: string;
  /** Files are named `<prefix>-<NNNNN>.warc.gz`. */
  readonly prefix: string;
  readonly config: CrawlConfig;
  /** Clock time of the warcinfo records. */
  readonly now: () => number;
  /** A URL's previous observation with an archived record: its answers may be archived as revisits of it. */
  readonly earlier?: (url: string) => EarlierObservation | undefined;
  /**
   * The latest earlier observation that ended at `url` with an archived record, looked up when an
   * answer of `url` that `earlier` does not cover may be a revisit (a URL beyond those `earlier`
   * knows: the adaptive part of a weekly crawl).
   */
  readonly archived?: (url: string) => Promise<EarlierObservation | undefined>;
}

/** A URL's previous observation, as far as the archive can refer to its record. */
export interface EarlierObservation {
  /** The URL its record was archived for (the previous observation's final URL). */
  readonly url: string;
  /** The snapshot folder that holds its record. */
  readonly dir: string;
  readonly pointer: WarcPointer;
  /** SHA-256 (hex) of its decoded body. */
  readonly contentSha256: string;
}

/** The WARC archive of one crawl: observes the fetcher's exchanges and writes them. */
export interface CrawlArchive extends ExchangeObserver {
  /**
   * Until the function returned is called, a response for the final URL of `url`'s previous
   * observation (options.earlier) is archived as a revisit of that observation's record when it may
   * be (warc-records.ts): a crawl says so around each fetch, so that an answer reached through a
   * redirect is matched too, and the archive holds no more than one observation per fetch under way.
   * An answer of a URL whose own previous observation ended there is matched without it.
   */
  expect(url: string): () => void;
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

const IDENTITY = /^\s*(identity)?\s*$/i;

/**
 * The record behind a URL's previous observation, for an exchange of that URL. An identity-coded
 * payload is the decoded body the previous observation's content_sha256 hashes: when that differs,
 * the payloads differ and nothing is read; otherwise the record's head is (responseBehind).
 */
function earlierRecord(record: ExchangeRecord, earlier: EarlierObservation): EarlierRecord {
  const coding = record.response?.headers.find(([name]) => name.toLowerCase() === 'content-encoding')?.[1];
  return async (digest) => {
    if (digest !== null && IDENTITY.test(coding ?? '') && digest !== `sha256:${earlier.contentSha256}`) {
      return null;
    }
    const referent = await responseBehind(earlier.dir, earlier.pointer);
    return referent?.uri === record.url ? referent : null;
  };
}

/**
 * The record of the latest earlier observation that ended at the exchange's URL, looked up only for
 * an answer that may be archived as a revisit of one (a whole, non-empty 2xx payload: robots.txt,
 * redirects and errors are never matched, and cost no lookup).
 */
function archivedRecord(
  record: ExchangeRecord,
  archived: NonNullable<CrawlArchiveOptions['archived']>,
): EarlierRecord | null {
  const response = record.response;
  const candidate =
    !record.robots &&
    response !== null &&
    response.status >= 200 &&
    response.status < 300 &&
    response.truncated === null &&
    response.bodyBytes > 0;
  if (!candidate) return null;
  // asked for at once, so that the lookups of exchanges ending together share a read; one that
  // fails leaves the answer archived in full, as one never observed before
  const found = archived(record.url).catch(() => undefined);
  return async (digest) => {
    const earlier = await found;
    return earlier?.url === record.url ? earlierRecord(record, earlier)(digest) : null;
  };
}

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
  const expected = new Map<string, EarlierObservation>();

  async function archive(record: ExchangeRecord, earlier: EarlierRecord | null): Promise<WarcPointer | null> {
    const serialised = exchangeMembers(record, earlier);
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
    expect(url) {
      const earlier = options.earlier?.(url);
      if (earlier === undefined) return () => {};
      expected.set(earlier.url, earlier);
      return () => {
        if (expected.get(earlier.url) === earlier) expected.delete(earlier.url);
      };
    },
    exchanged(record) {
      // any answer of a URL observed at that very URL, whichever fetch asked (a JSON-LD context, a
      // second fetch that redirected there): which fetches overlap must not decide what is archived
      const own = options.earlier?.(record.url);
      const seen = expected.get(record.url) ?? (own?.url === record.url ? own : undefined);
      const pointer = archive(
        record,
        seen
          ? earlierRecord(record, seen)
          : options.archived
            ? archivedRecord(record, options.archived)
            : null,
      );
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
