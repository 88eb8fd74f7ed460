import { Readable } from 'node:stream';
import { type RevisitReferents, readArchivedResponse, recordLimits } from '../archive/index.ts';
import type { CrawlConfig } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import { type ContextLoader, crawlContexts } from '../rdf/index.ts';
import { alternateJsonLd, decodeContentCoding, isJsonType } from '../web/index.ts';
import type { CaptureLookup } from './capture-index.ts';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Remote JSON-LD contexts answered from the snapshot's own WARC files in `folder`, where the crawl
 * archived each context exchange it made: what the crawl's parsers were given, with no network. A
 * context URL is looked up in the folder's capture index `index` (its last record, the last retry's),
 * redirects are followed there up to `maxRedirects` hops, and the body is decoded as the crawler
 * decoded it; an answer in another type than JSON with a Link to its JSON-LD alternate is followed
 * there once, as the crawl's contextLoader (crawl/context-loader.ts) did. At most
 * `maxContextsPerCrawl` distinct URLs are answered, as in the crawl. A context the crawl never
 * fetched fails like an unreachable one. A record is read only
 * from the WARC files `files` names (the manifest's), within the crawl's record limits, and must
 * match its own digests (a revisit, the record it refers to where `referents` says it may lie):
 * anything else is `corrupt`.
 */
export function archivedContextLoader(
  folder: string,
  index: CaptureLookup,
  config: Pick<CrawlConfig, 'maxContextsPerCrawl' | 'maxRedirects' | 'maxBytes' | 'robotsMaxBytes'>,
  files: ReadonlySet<string>,
  referents?: RevisitReferents,
): ContextLoader {
  const limits = recordLimits(config);
  const answer = async (url: string): Promise<string> => {
    let current = url;
    let followedAlternate = false;
    for (let hops = 0; hops <= config.maxRedirects; hops++) {
      const pointer = await index.last(current);
      if (!pointer) throw new ObservatoryError('parse', `JSON-LD context ${current}: not in the archive`);
      if (!files.has(pointer.filename)) {
        throw new ObservatoryError(
          'corrupt',
          `${index.file}: ${current} is in ${pointer.filename}, which the manifest does not list`,
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
