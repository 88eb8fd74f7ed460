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
 * - a UTF-8 byte order mark does not hide the first line;
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

const LINE = /^(\s*)([A-Za-z-]+)(\s*:\s*)(.*)$/;

/** The robots.txt text with patterns and agent names in the shape robots-parser compares correctly. */
function normaliseText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const m = LINE.exec(line.replace(/#.*$/, ''));
      if (!m) return line;
      const key = m[2].toLowerCase();
      const value = m[4].trim();
      if (key === 'user-agent')
        return `user-agent: ${value === '*' ? '*' : (/^[A-Za-z_-]+/.exec(value)?.[0] ?? value)}`;
      if (key === 'allow' || key === 'disallow') return `${key}: ${canonicalPath(value)}`;
      return line;
    })
    .join('\n');
}

/** The text of the first `maxBytes` bytes, without a line the cut left incomplete. */
export function robotsText(body: Buffer, truncated: boolean): string {
  if (!truncated) return body.toString('utf8');
  const lastBreak = Math.max(body.lastIndexOf(0x0a), body.lastIndexOf(0x0d));
  return body.subarray(0, lastBreak + 1).toString('utf8');
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
