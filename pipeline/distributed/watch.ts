import type pg from 'pg';
import type { Clock, Logger } from '../core/index.ts';
import { crawlWorkers } from './store.ts';

/** How often the coordinator looks at its workers, and after how long it says that none crawls. */
export interface WatchTimes {
  /** Between two looks. */
  readonly everyMs: number;
  /** URLs waiting with no live worker this long: said, and again every `repeatMs`. */
  readonly noWorkerMs: number;
  /** URLs waiting, workers live, and no URL recorded this long: said, and again every `repeatMs`. */
  readonly quietMs: number;
  readonly repeatMs: number;
}

export const WATCH_TIMES: WatchTimes = { everyMs: 1000, noWorkerMs: 5000, quietMs: 60_000, repeatMs: 60_000 };

/** What the coordinator knows of its crawl at a poll (crawlStatus). */
interface Status {
  readonly round: number;
  readonly waiting: number;
  readonly recorded: number;
}

/**
 * The coordinator's watch over the workers of its crawl, so that it never waits without a word: a
 * worker that stopped on an error is reported with the error (its leases were given back, or
 * expire, and the other workers take its PLDs over); URLs waiting with no live worker are said
 * (none started, all gone, or all serving other crawls of the database); and so is a crawl whose
 * workers hold leases but record nothing for long. Returns the live workers for the progress line.
 */
export class CrawlWatch {
  private readonly pool: pg.Pool;
  private readonly crawl: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly times: WatchTimes;
  /** The failure reported of each worker that has not crawled since (a restarted one fails anew). */
  private readonly reported = new Map<string, string>();
  private lookedAt = Number.NEGATIVE_INFINITY;
  private live = 0;
  private recorded = -1;
  /** When the count of URLs recorded last moved. */
  private progressAt: number;
  /** Since when URLs wait with no live worker (-Infinity: since a worker failed); null while served. */
  private unservedSince: number | null = null;
  /** When the lack of workers was last said (then their return is said too); -Infinity: not since served. */
  private unservedSaidAt = Number.NEGATIVE_INFINITY;
  private quietSaidAt = Number.NEGATIVE_INFINITY;

  constructor(pool: pg.Pool, crawl: string, clock: Clock, logger: Logger, times: WatchTimes = WATCH_TIMES) {
    this.pool = pool;
    this.crawl = crawl;
    this.clock = clock;
    this.logger = logger;
    this.times = times;
    this.progressAt = clock.now();
  }

  /** Looks at the workers (at most every `everyMs`) and says what needs saying; the live workers. */
  async look(status: Status): Promise<number> {
    const now = this.clock.now();
    if (status.recorded !== this.recorded) {
      this.recorded = status.recorded;
      this.progressAt = now;
    }
    if (now - this.lookedAt < this.times.everyMs) return this.live;
    this.lookedAt = now;
    const { workers, elsewhere } = await crawlWorkers(this.pool, this.crawl);
    for (const { id, failure } of workers) {
      if (failure === null) this.reported.delete(id);
      if (failure === null || this.reported.get(id) === failure) continue;
      this.reported.set(id, failure);
      // whether any worker is left is said anew, at once
      this.unservedSince = Number.NEGATIVE_INFINITY;
      this.unservedSaidAt = Number.NEGATIVE_INFINITY;
      this.logger.error(
        { crawl: this.crawl, worker: id, error: failure },
        'worker stopped on an error; the other workers take its PLDs over once its leases are free',
      );
    }
    const live = workers.filter((w) => w.live && w.failure === null);
    this.live = live.length;
    if (status.waiting === 0 || live.length > 0) {
      if (this.unservedSaidAt > Number.NEGATIVE_INFINITY && live.length > 0)
        this.logger.info({ crawl: this.crawl, workers: live.length }, 'workers crawl again');
      this.unservedSince = null;
      this.unservedSaidAt = Number.NEGATIVE_INFINITY;
    } else {
      this.unservedSince ??= now;
      if (
        now - this.unservedSince >= this.times.noWorkerMs &&
        now - this.unservedSaidAt >= this.times.repeatMs
      ) {
        this.unservedSaidAt = now;
        this.logger.warn(
          { crawl: this.crawl, round: status.round, waiting: status.waiting, elsewhere },
          elsewhere > 0
            ? `no worker serves this crawl: ${elsewhere} serve other crawls of the database first`
            : 'no worker is crawling: start `observatory worker --coordinator URL`',
        );
      }
    }
    const quiet = now - this.progressAt;
    if (
      status.waiting > 0 &&
      live.length > 0 &&
      quiet >= this.times.quietMs &&
      now - this.quietSaidAt >= this.times.repeatMs
    ) {
      this.quietSaidAt = now;
      this.logger.warn(
        {
          crawl: this.crawl,
          round: status.round,
          waiting: status.waiting,
          quietSeconds: Math.round(quiet / 1000),
          leases: Object.fromEntries(live.map((w) => [w.id, w.leased])),
        },
        'no URL recorded for a while though URLs wait: the live workers and the PLDs each leases',
      );
    }
    return this.live;
  }
}
