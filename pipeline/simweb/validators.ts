/**
 * HTTP validators of generated documents (RFC 9110 section 8.8 and 13): the ETag and
 * Last-Modified a PLD sends, and whether a conditional GET gets 304 Not Modified, for each
 * validator habit, including the two ways real servers get them wrong.
 */
import type { DocVersion } from './dynamics.ts';
import { hash32 } from './random.ts';
import type { ValidatorHabit } from './web-shape.ts';

/** The conditional headers of a request. */
export interface Conditions {
  readonly ifNoneMatch: string | undefined;
  readonly ifModifiedSince?: string | undefined;
}

/** What a document's validators depend on: which bytes are served (version and syntax) and when. */
export interface Representation {
  readonly key: number;
  readonly doc: number;
  readonly version: DocVersion;
  readonly format: string;
  /** The virtual time of the request. */
  readonly at: number;
}

/** The ETag and Last-Modified headers the habit sends (none for `none`). */
export function validatorHeaders(habit: ValidatorHabit, r: Representation): Record<string, string> {
  if (habit === 'none') return {};
  const { key, doc, version, format, at } = r;
  const fickle = habit === 'fickle-etag';
  // a fickle server stamps each response as new: its validators follow the clock, not the content
  const etag = fickle
    ? hash32(key, doc, version.all, format.length, format.charCodeAt(0), at, 0xf1c)
    : hash32(key, doc, version.all, format.length, format.charCodeAt(0));
  return {
    etag: `"${etag.toString(16)}"`,
    'last-modified': new Date(fickle ? at : version.modifiedAt).toUTCString(),
  };
}

/** RFC 9110 13.1.2: weak comparison of the entity-tags listed in If-None-Match, `*` matching any. */
function noneMatchHolds(ifNoneMatch: string, etag: string): boolean {
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => strip(t) === strip(etag));
}

/**
 * Whether the answer is 304 Not Modified. `correct`: If-None-Match names the current ETag, or
 * (only without If-None-Match, RFC 9110 13.1.3) If-Modified-Since is not older than the last
 * change, at the one-second resolution of HTTP dates. `stale-304`: any conditional GET.
 * `fickle-etag` and `none`: never.
 */
export function notModified(
  habit: ValidatorHabit,
  headers: Record<string, string>,
  req: Conditions,
): boolean {
  const inm = req.ifNoneMatch;
  const ims = req.ifModifiedSince;
  if (habit === 'stale-304') return inm !== undefined || ims !== undefined;
  if (habit !== 'correct') return false;
  if (inm !== undefined) return noneMatchHolds(inm, headers.etag);
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(headers['last-modified']) <= since;
}
