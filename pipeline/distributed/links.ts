import type { Statement } from '../core/index.ts';
import { extractLinks } from '../rdf/index.ts';

/**
 * The links a document at a depth below the plan's adds as candidates: at most `maxLinks`, its own
 * URL and final URL left out, as the one-process crawl takes them (crawl.ts afterDocument).
 */
export function documentLinks(
  url: string,
  finalUrl: string,
  statements: readonly Statement[],
  maxLinks: number,
): string[] {
  const links: string[] = [];
  for (const link of extractLinks(statements)) {
    if (links.length >= maxLinks) break;
    if (link !== url && link !== finalUrl) links.push(link);
  }
  return links;
}
