import type { CrawlConfig, FetchResult } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import { type ContextLoader, crawlContexts } from '../rdf/index.ts';
import { alternateJsonLd, type Fetcher, isJsonType } from '../web/index.ts';

/**
 * One crawl's remote JSON-LD contexts. They are fetched through the crawl's own fetcher, so they
 * obey robots.txt and politeness like every other request; each URL is fetched once per crawl
 * (failures too) and its answer reused; and at most `maxContextsPerCrawl` are fetched: past it,
 * a context not fetched yet is refused (`context_limit`), one already fetched still served.
 * The per-document limit is the parser's (parse-jsonld.ts), counted on every context a
 * document names, fetched or cached, so that whether a document passes does not depend on
 * what other documents fetched before it. A resumed crawl starts counting afresh.
 */
export function contextLoader(web: Fetcher, config: CrawlConfig): ContextLoader {
  return crawlContexts(config.maxContextsPerCrawl, (url) => fetchContextText(web, url));
}

/**
 * Fetches one context's text; rejects with a `parse` error when it cannot be had, or with the
 * signal's reason when it aborts. A context URL that answers in another type than JSON with a Link
 * to its JSON-LD alternate (as https://schema.org does) is followed there once, within the same
 * fetch of the context.
 */
async function fetchContextText(
  web: Pick<Fetcher, 'fetchContext'>,
  url: string,
  signal?: AbortSignal,
): Promise<string> {
  const result = await web.fetchContext(url, signal);
  const alternate = contextAlternate(result, url);
  return contextText(alternate ? await web.fetchContext(alternate, signal) : result);
}

/** Where the context `url` has its JSON-LD when `result` (its answer) is of another type, or null. */
export function contextAlternate(result: FetchResult, url: string): string | null {
  const alternate = isJsonType(result.headers['content-type'])
    ? null
    : alternateJsonLd(result.headers.link, result.finalUrl);
  return alternate && alternate !== url ? alternate : null;
}

/** The text of a context's final answer, or the `parse` error a context loader rejects with. */
export function contextText(answer: FetchResult): string {
  if (answer.error || !answer.body) {
    throw new ObservatoryError('parse', `JSON-LD context ${answer.finalUrl}: ${answer.error ?? 'empty'}`);
  }
  return answer.body.toString('utf8');
}
