import { createRequire } from 'node:module';

// robots-parser is CommonJS (`module.exports = fn`); its typings only fit a bundler's interop.
const robotsParser = createRequire(import.meta.url)(
  'robots-parser',
) as typeof import('robots-parser').default;

/**
 * robots.txt rules per RFC 9309. robots-parser does the grouping (case-insensitive product token,
 * `*` fallback, groups for one agent merged), the matching (`*`, `$`, longest match, Allow wins a
 * tie) and Crawl-delay. This module wraps it where it falls short of the RFC:
 * - percent-encoding (2.2.2): `%41` and `A` are the same octet, so unreserved characters are
 *   decoded and hex is upper-cased in both patterns and paths before comparing;
 * - a `User-agent` value is matched by its product token only (`Bot/1.0 (+url)` names `Bot`);
 * - a UTF-8 byte order mark at the start of the file, whole or cut short, does not hide the first
 *   line; anywhere else its bytes are part of a line, which then is no record;
 * - a line that is not a record (RFC 9309 2.2: optional spaces or tabs, a key, a colon, a value)
 *   is ignored, where robots-parser would trim any Unicode space off it first;
 * - a file cut at the size limit loses its partial last line (a cut `Allow: /private` must not
 *   become `Allow: /`);
 * - `/robots.txt` itself is always allowed (2.2.2).
 */
export interface RobotsPolicy {
  /** Whether our product token may fetch `url` (a URL on the authority the file came from). */
  isAllowed(url: URL): boolean;
  /** Crawl-delay for our token (or `*`), in milliseconds; null when absent or invalid. */
  readonly crawlDelayMs: number | null;
}

const UNRESERVED = /%([0-9A-Fa-f]{2})/g;

/** One spelling for equal octets: unreserved characters decoded, the rest percent-encoded in upper-case hex. */
export function canonicalPath(path: string): string {
  const decoded = path.replace(UNRESERVED, (match, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : match.toUpperCase();
  });
  try {
    return encodeURI(decoded).replace(/%25([0-9A-F]{2})/g, '%$1');
  } catch {
    return decoded; // lone surrogates: compare as they are
  }
}

/** A record: key and value around a colon, with only spaces and tabs as white space (RFC 9309 2.2). */
const RECORD = /^[ \t]*([A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/;

/**
 * The robots.txt text as robots-parser compares correctly: records with patterns and agent names
 * canonical, and every line that is no record blanked (robots-parser skips blank lines, and they
 * neither start nor end a group).
 */
function normaliseText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const m = RECORD.exec(line.replace(/#.*$/, ''));
      if (!m) return '';
      const key = m[1].toLowerCase();
      const value = m[2];
      if (key === 'user-agent')
        return `user-agent: ${value === '*' ? '*' : (/^[A-Za-z_-]+/.exec(value)?.[0] ?? value)}`;
      if (key === 'allow' || key === 'disallow') return `${key}: ${canonicalPath(value)}`;
      return `${key}: ${value}`;
    })
    .join('\n');
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * Bytes of a UTF-8 byte order mark at the start of a file, whole or cut short (`EF`, `EF BB`): the
 * robots.txt authors' compliance cases skip these too, and nothing else there.
 */
function bomLength(body: Buffer): number {
  let n = 0;
  while (n < BOM.length && body[n] === BOM[n]) n++;
  return n;
}

/**
 * The text of a robots.txt body without its byte order mark; of a body cut at the size limit
 * (`truncated`), without the line the cut left incomplete.
 */
export function robotsText(body: Buffer, truncated: boolean): string {
  const start = bomLength(body);
  const end = truncated ? Math.max(body.lastIndexOf(0x0a), body.lastIndexOf(0x0d)) + 1 : body.length;
  return body.subarray(start, Math.max(start, end)).toString('utf8');
}

/** The policy of one robots.txt file fetched for `origin` (scheme, host and port). */
export function parseRobots(text: string, origin: string, productToken: string): RobotsPolicy {
  const robotsUrl = `${origin}/robots.txt`;
  const robots = robotsParser(robotsUrl, normaliseText(text));
  const token = productToken.toLowerCase();
  const delay = robots.getCrawlDelay(token);
  return {
    isAllowed(url) {
      if (url.pathname === '/robots.txt') return true;
      return robots.isAllowed(`${origin}${canonicalPath(url.pathname + url.search)}`, token) !== false;
    },
    crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay * 1000 : null,
  };
}

/** RFC 9309 2.3.1.3: no robots.txt (4xx), so every URL is allowed. */
export const ALLOW_ALL: RobotsPolicy = Object.freeze({ isAllowed: () => true, crawlDelayMs: null });
