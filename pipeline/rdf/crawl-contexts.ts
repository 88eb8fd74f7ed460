import { ObservatoryError } from '../core/index.ts';
import type { ContextLoader } from './syntax-parser.ts';

/**
 * A crawl's remote JSON-LD contexts, whatever answers them (the network, or a crawl's archive):
 * each URL is asked of `answer` once (a failure is an answer too, and is not asked again), and at
 * most `maxContextsPerCrawl` distinct URLs are asked: past it, a context not asked yet is refused
 * (`context_limit`), one already answered is still served.
 */
export function crawlContexts(
  maxContextsPerCrawl: number,
  answer: (url: string) => Promise<string>,
): ContextLoader {
  const cache = new Map<string, Promise<string>>();
  return (url) => {
    let pending = cache.get(url);
    if (pending) return pending;
    if (cache.size >= maxContextsPerCrawl) return Promise.reject(contextLimitError(url, maxContextsPerCrawl));
    pending = answer(url);
    pending.catch(() => {});
    cache.set(url, pending);
    return pending;
  };
}

/** Why the context `url` is refused once its crawl asked for `maxContextsPerCrawl` others. */
export function contextLimitError(url: string, maxContextsPerCrawl: number): ObservatoryError {
  return new ObservatoryError(
    'context_limit',
    `remote JSON-LD context ${url} refused: this crawl fetched its limit of ${maxContextsPerCrawl} contexts`,
  );
}
