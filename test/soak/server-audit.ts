import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import { ROBOTS_CRAWL_DELAY_S, ROBOTS_REDIRECT_TARGET, robotsAllows } from '../../pipeline/simweb/robots.ts';
import { robotsVariantOf } from '../../pipeline/simweb/router.ts';
import type { GeneratedWeb } from '../../pipeline/simweb/web-shape.ts';
import { startsByPld } from '../crawl/sim-crawl.ts';

/** What the server saw of a crawler's manners: every rule broken, as readable lines. */
export interface ServerAudit {
  readonly requests: number;
  /** Consecutive request starts of one PLD closer than its delay (Crawl-delay, capped, included). */
  readonly delayViolations: string[];
  /** Requests for a path robots.txt forbids our product token (robots.txt itself excepted). */
  readonly robotsViolations: string[];
  /** Requests answered with a fault, by kind (429, 5xx, 4xx, no answer: hang or reset). */
  readonly faults: Record<string, number>;
}

function faultKind(status: number | null): string | null {
  if (status === null) return 'no answer (hang, reset)';
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return null;
}

/**
 * Audits a request log against the politeness invariant and robots.txt, measured at the server:
 * the delay of a PLD is `delayMs`, or the capped Crawl-delay where one of its hosts sets one.
 */
export function auditRequests(
  web: GeneratedWeb,
  log: readonly RequestLogEntry[],
  delayMs: number,
  crawlDelayCapMs: number,
): ServerAudit {
  const crawlDelay = Math.max(delayMs, Math.min(ROBOTS_CRAWL_DELAY_S * 1000, crawlDelayCapMs));
  const delayViolations: string[] = [];
  for (const [pld, list] of startsByPld(log)) {
    const slow = list.some((e) => robotsVariantOf(web, e.host) === 'crawl-delay');
    // a Crawl-delay applies once the robots.txt that sets it has been read: judge gaps after that
    let armed = !slow;
    for (let i = 1; i < list.length; i++) {
      const gap = list[i].startedAt - list[i - 1].startedAt;
      const minimum = armed ? crawlDelay : delayMs;
      if (gap < minimum) {
        delayViolations.push(`${pld}: ${list[i - 1].path} then ${list[i].path} ${gap.toFixed(1)} ms apart`);
      }
      const read = list[i - 1];
      if (read.path === '/robots.txt' && robotsVariantOf(web, read.host) === 'crawl-delay') armed = true;
    }
  }
  const robotsViolations = log
    .filter((e) => e.path !== '/robots.txt' && e.path !== ROBOTS_REDIRECT_TARGET)
    .filter((e) => {
      const variant = robotsVariantOf(web, e.host);
      return variant === null || !robotsAllows(variant, new URL(e.path, 'http://x').pathname);
    })
    .map((e) => `${e.host}${e.path} (${robotsVariantOf(web, e.host)})`);
  const faults: Record<string, number> = {};
  for (const e of log) {
    const kind = faultKind(e.status);
    if (kind) faults[kind] = (faults[kind] ?? 0) + 1;
  }
  return { requests: log.length, delayViolations, robotsViolations, faults };
}
