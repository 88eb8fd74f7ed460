import type { CrawlConfig } from '../core/index.ts';

/**
 * The most a reader of a crawl's archive accepts of one record: its gzip member (`compressed`) and
 * the record it inflates to (`inflated`). The crawl kept no body beyond its byte limits (a
 * document's maxBytes, robots.txt's robotsMaxBytes, 64 KiB of a redirect's body), so a larger
 * record was not written by it: reading stops there instead of allocating or inflating what a
 * damaged pointer or a forged member asks for.
 */
export interface RecordLimits {
  readonly compressed: number;
  readonly inflated: number;
}

/** Room for a record's WARC head and HTTP head beside its body: far more than either ever takes. */
export const HEAD_ALLOWANCE = 1024 * 1024;
const REDIRECT_BODY = 64 * 1024;

/**
 * The limits of records written by a crawl with this configuration (RecordLimits). A gzip member
 * of incompressible bytes is larger than they are, by at most 5 bytes per 16 KiB block plus its
 * header and trailer.
 */
export function recordLimits(config: Pick<CrawlConfig, 'maxBytes' | 'robotsMaxBytes'>): RecordLimits {
  const inflated = Math.max(config.maxBytes, config.robotsMaxBytes, REDIRECT_BODY) + HEAD_ALLOWANCE;
  return { inflated, compressed: inflated + Math.ceil(inflated / 1024) + 1024 };
}
