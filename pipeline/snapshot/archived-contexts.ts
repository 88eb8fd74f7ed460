import { Readable } from 'node:stream';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type RevisitReferents, readArchivedResponse, recordLimits } from '../archive/index.ts';
import type { CrawlConfig } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import { type ContextLoader, crawlContexts } from '../rdf/index.ts';
import { alternateJsonLd, decodeContentCoding, isJsonType } from '../web/index.ts';
import { sqlString } from './duckdb-session.ts';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Remote JSON-LD contexts answered from the snapshot's own WARC files in `folder`, where the crawl
 * archived each context exchange it made: what the crawl's parsers were given, with no network. A
 * context URL is looked up in the folder's CDXJ index `cdxj` (its last response record, the last retry's),
 * redirects are followed there up to `maxRedirects` hops, and the body is decoded as the crawler
 * decoded it; an answer in another type than JSON with a Link to its JSON-LD alternate is followed
 * there once, as the crawl's contextLoader (crawl/context-loader.ts) did. At most
 * `maxContextsPerCrawl` distinct URLs are answered, as in the crawl. A context the crawl never
 * fetched fails like an unreachable one. `query` runs one lookup at a time. A record is read only
 * from the WARC files `files` names (the manifest's), within the crawl's record limits, and must
 * match its own digests (a revisit, the record it refers to where `referents` says it may lie):
 * anything else is `corrupt`.
 */
export function archivedContextLoader(
  folder: string,
  cdxj: string,
  query: <T>(run: (connection: DuckDBConnection) => Promise<T>) => Promise<T>,
  config: Pick<CrawlConfig, 'maxContextsPerCrawl' | 'maxRedirects' | 'maxBytes' | 'robotsMaxBytes'>,
  files: ReadonlySet<string>,
  referents?: RevisitReferents,
): ContextLoader {
  const index = sqlString(cdxj);
  const limits = recordLimits(config);
  const lookup = (url: string) =>
    query(async (connection) => {
      const rows = (
        await connection.runAndReadAll(
          `SELECT j->>'filename', (j->>'offset')::BIGINT, (j->>'length')::BIGINT
          FROM (SELECT substr(line, strpos(line, ' {') + 1)::JSON AS j FROM read_csv(${index}, header = false,
            delim = '\\0', quote = '', escape = '', columns = {'line': 'VARCHAR'}))
          WHERE j->>'url' = ${sqlString(url)} ORDER BY 1 DESC, 2 DESC LIMIT 1`,
        )
      ).getRows();
      return rows.length === 0
        ? null
        : { filename: rows[0][0] as string, offset: Number(rows[0][1]), length: Number(rows[0][2]) };
    });
  const answer = async (url: string): Promise<string> => {
    let current = url;
    let followedAlternate = false;
    for (let hops = 0; hops <= config.maxRedirects; hops++) {
      const pointer = await lookup(current);
      if (!pointer) throw new ObservatoryError('parse', `JSON-LD context ${current}: not in the archive`);
      if (!files.has(pointer.filename)) {
        throw new ObservatoryError(
          'corrupt',
          `${cdxj}: ${current} is in ${pointer.filename}, which the manifest does not list`,
        );
      }
      const response = await readArchivedResponse(folder, pointer, limits, { digests: true, referents });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location) {
        current = new URL(location, current).href;
        continue;
      }
      if (response.status < 200 || response.status >= 300 || response.truncated) {
        throw new ObservatoryError(
          'parse',
          `JSON-LD context ${current}: HTTP ${response.status} in the archive`,
        );
      }
      const alternate = isJsonType(response.headers.get('content-type'))
        ? null
        : alternateJsonLd(response.headers.get('link') ?? undefined, current);
      if (alternate && alternate !== current && !followedAlternate) {
        followedAlternate = true;
        current = alternate;
        hops = -1;
        continue;
      }
      const decoded = await decodeContentCoding(
        Readable.from([response.payload]),
        response.headers.get('content-encoding') ?? undefined,
        config.maxBytes,
        'fail',
      );
      return decoded.body.toString('utf8');
    }
    throw new ObservatoryError('parse', `JSON-LD context ${url}: more than ${config.maxRedirects} redirects`);
  };
  return crawlContexts(config.maxContextsPerCrawl, answer);
}
