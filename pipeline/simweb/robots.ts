/**
 * robots.txt variants seen on the real Web. Each is a fixed answer; a host has one variant.
 * `blocks(variant, path)` says what a crawler with our product token must conclude (RFC 9309),
 * so that the ground truth and the scenario catalogue agree with the files served.
 */
import { PRODUCT_TOKEN } from '../core/index.ts';

export type RobotsVariant =
  | 'none'
  | 'allow'
  | 'disallow-paths'
  | 'crawl-delay'
  | 'token-block'
  | 'other-token'
  | 'server-error'
  | 'unavailable'
  | 'slow'
  | 'large'
  | 'redirect';

/** What a robots.txt request gets. */
export interface RobotsAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Extra wait before answering (not scaled: slowness is the point of the variant). */
  readonly delayMs: number;
}

/** Where the `redirect` variant sends robots.txt. */
export const ROBOTS_REDIRECT_TARGET = '/robots-moved.txt';
/** Seconds of Crawl-delay in the `crawl-delay` variant. */
export const ROBOTS_CRAWL_DELAY_S = 5;
/** Delay of the `slow` variant, in milliseconds. */
export const ROBOTS_SLOW_MS = 1500;
/** Bytes before the late rule in the `large` variant: past RFC 9309's 500 KiB parsing floor. */
export const ROBOTS_LARGE_PADDING = 600 * 1024;

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
const DISALLOW_PRIVATE = 'User-agent: *\nDisallow: /private/\nDisallow: /search\n';

let largeBody: string | undefined;
function large(): string {
  largeBody ??= `${DISALLOW_PRIVATE}${'# padding to exceed the 500 KiB parsing limit\n'.repeat(
    Math.ceil(ROBOTS_LARGE_PADDING / 46),
  )}Disallow: /late/\n`;
  return largeBody;
}

/** The answer for `/robots.txt` (and the redirect target) under a variant. */
export function robotsAnswer(variant: RobotsVariant, path: string): RobotsAnswer {
  const ok = (body: string, delayMs = 0): RobotsAnswer => ({ status: 200, body, headers: TEXT, delayMs });
  if (path === ROBOTS_REDIRECT_TARGET) {
    return variant === 'redirect'
      ? ok(DISALLOW_PRIVATE)
      : { status: 404, body: 'Not found\n', headers: TEXT, delayMs: 0 };
  }
  switch (variant) {
    case 'none':
      return { status: 404, body: 'Not found\n', headers: TEXT, delayMs: 0 };
    case 'allow':
      return ok('User-agent: *\nDisallow:\n');
    case 'disallow-paths':
      return ok(DISALLOW_PRIVATE);
    case 'crawl-delay':
      return ok(`User-agent: *\nCrawl-delay: ${ROBOTS_CRAWL_DELAY_S}\nDisallow: /private/\n`);
    case 'token-block':
      return ok(`User-agent: ${PRODUCT_TOKEN}\nDisallow: /\n\nUser-agent: *\nAllow: /\n`);
    case 'other-token':
      return ok(
        'User-agent: Googlebot\nUser-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n',
      );
    case 'server-error':
      return { status: 500, body: 'Internal Server Error\n', headers: TEXT, delayMs: 0 };
    case 'unavailable':
      return {
        status: 503,
        body: 'Service Unavailable\n',
        headers: { ...TEXT, 'retry-after': '3600' },
        delayMs: 0,
      };
    case 'slow':
      return ok('User-agent: *\nDisallow: /private/\n', ROBOTS_SLOW_MS);
    case 'large':
      return ok(large());
    case 'redirect':
      return { status: 301, body: '', headers: { location: ROBOTS_REDIRECT_TARGET }, delayMs: 0 };
  }
}

/** Whether a crawler with our product token may fetch `path` on a host with this variant (false: blocked or unavailable). */
export function robotsAllows(variant: RobotsVariant, path: string): boolean {
  switch (variant) {
    case 'none':
    case 'allow':
      return true;
    case 'token-block':
    case 'server-error':
    case 'unavailable':
      return false;
    default:
      // for `large` the late rule lies past the parsing limit, so only /private/ and /search count
      return !path.startsWith('/private/') && !path.startsWith('/search');
  }
}
