import { ObservatoryError, quoteInput } from '../../core/index.ts';
import { changeHistory, HISTORY_INSTANT, historyInstant } from './change-history.ts';
import type { ChangeHistory } from './types.ts';

/** One page's revisions gathered from one or more API responses (continuations add more). */
export interface PageRevisions {
  readonly title: string;
  /** Times of the revisions kept (minor ones dropped unless asked). */
  readonly times: number[];
  /** First and last revision of any kind: creation starts the history. */
  first: number;
  last: number;
  /** The latest `curtimestamp` of the responses that held the page: when the history was read. */
  readAt: number;
  /** Revisions already added (revid, or timestamp without it): a page listed in two categories counts once. */
  readonly seen: Set<string>;
}

/** `where`: the file, and the revision in it when one is at fault. */
function bad(where: string, expected: string): ObservatoryError {
  return new ObservatoryError('invalid_input', `${where}: expected ${expected}`);
}

/** MediaWiki marks minor edits with `"minor": ""` (formatversion 1) or `"minor": true` (2). */
function isMinor(revision: Record<string, unknown>): boolean {
  return revision.minor === '' || revision.minor === true;
}

/**
 * Adds the revisions of one MediaWiki API response (`action=query&prop=revisions&rvprop=
 * timestamp|flags`, formatversion 1 or 2) into `pages`, keyed by page id. Minor revisions are
 * dropped unless `keepMinor`. Pages without revisions add nothing.
 */
export function addMediaWikiResponse(
  json: string,
  file: string,
  pages: Map<string, PageRevisions>,
  keepMinor = false,
): void {
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    throw bad(file, 'a MediaWiki API response in JSON');
  }
  const query = (body as { query?: { pages?: unknown } } | null)?.query;
  if (!query || typeof query.pages !== 'object' || query.pages === null) {
    throw bad(file, 'a MediaWiki API response with query.pages (action=query&prop=revisions)');
  }
  const cur = (body as { curtimestamp?: unknown }).curtimestamp;
  const readAt = cur === undefined ? Number.NaN : historyInstant(cur);
  if (readAt === null) throw bad(file, `curtimestamp as ${HISTORY_INSTANT}, got ${quoteInput(cur)}`);
  const list = Array.isArray(query.pages) ? query.pages : Object.values(query.pages);
  for (const page of list as Record<string, unknown>[]) {
    const revisions = page.revisions;
    if (revisions === undefined) continue;
    if (!Array.isArray(revisions)) throw bad(file, `revisions of page ${quoteInput(page.title)} as an array`);
    const key = String(page.pageid ?? page.title);
    let entry = pages.get(key);
    if (!entry) {
      entry = {
        title: String(page.title ?? key),
        times: [],
        first: Infinity,
        last: -Infinity,
        readAt: Number.NaN,
        seen: new Set(),
      };
      pages.set(key, entry);
    }
    if (!Number.isNaN(readAt))
      entry.readAt = Number.isNaN(entry.readAt) ? readAt : Math.max(entry.readAt, readAt);
    for (const [k, revision] of (revisions as Record<string, unknown>[]).entries()) {
      const at = historyInstant(revision?.timestamp);
      if (at === null) {
        // revid is there when the query asked for rvprop=ids; the position in the response always is
        const which = revision?.revid === undefined ? `#${k + 1}` : `revid ${quoteInput(revision.revid)}`;
        throw bad(
          `${file}: revision ${which} of page ${quoteInput(entry.title)}`,
          `its timestamp (rvprop=timestamp|flags) as ${HISTORY_INSTANT}, got ${quoteInput(revision?.timestamp)}`,
        );
      }
      const key = revision.revid === undefined ? `t${at}` : `r${String(revision.revid)}`;
      if (entry.seen.has(key)) continue;
      entry.seen.add(key);
      entry.first = Math.min(entry.first, at);
      entry.last = Math.max(entry.last, at);
      if (keepMinor || !isMinor(revision)) entry.times.push(at);
    }
  }
}

/**
 * Change histories of the pages gathered: the first revision (minor or not) creates the page and
 * starts the history; every later kept revision is a change; the history ends when it was read (curtimestamp)
 * or, without it, at the last revision of any kind seen.
 */
export function mediaWikiHistories(pages: Map<string, PageRevisions>): ChangeHistory[] {
  const docs: ChangeHistory[] = [];
  for (const page of pages.values()) {
    if (page.first > page.last) continue;
    const end = Number.isNaN(page.readAt) ? page.last : page.readAt;
    // changeHistory keeps changes after the start: the creating revision is not a change
    docs.push(changeHistory(page.title, page.first, end, page.times));
  }
  return docs;
}
