import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import { ROBOTS_CRAWL_DELAY_S, ROBOTS_REDIRECT_TARGET, robotsAllows } from '../../pipeline/simweb/robots.ts';
import { robotsVariantOf } from '../../pipeline/simweb/router.ts';
import type { GeneratedWeb } from '../../pipeline/simweb/web-shape.ts';
import { startsByPld } from '../crawl/sim-crawl.ts';

/** What the server saw of a crawler's manners: every rule broken, as readable lines. */
export interface ServerAudit {
  readonly requests: number;
  /** Consecutive request starts of one PLD closer than the delay, or of one host closer than its Crawl-delay. */
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
 * two requests to one PLD start at least `delayMs` apart, and two requests to a host whose
 * robots.txt sets a Crawl-delay start at least that (capped) apart. A Crawl-delay speaks for its
 * own host (robots.txt is per host); the crawler applies it to the whole PLD, which is stricter.
 * The log may span several crawler processes (kills and restarts): the rules hold across them too.
 */
export function auditRequests(
  web: GeneratedWeb,
  log: readonly RequestLogEntry[],
  delayMs: number,
  crawlDelayCapMs: number,
): ServerAudit {
  const crawlDelay = Math.max(delayMs, Math.min(ROBOTS_CRAWL_DELAY_S * 1000, crawlDelayCapMs));
  const delayViolations: string[] = [];
  const check = (key: string, list: readonly RequestLogEntry[], minimum: number) => {
    for (let i = 1; i < list.length; i++) {
      const gap = list[i].startedAt - list[i - 1].startedAt;
      if (gap < minimum) {
        delayViolations.push(
          `${key}: ${list[i - 1].host}${list[i - 1].path} then ${list[i].host}${list[i].path} ${gap.toFixed(1)} ms apart (< ${minimum} ms)`,
        );
      }
    }
  };
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const [pld, list] of startsByPld(log)) {
    check(pld, list, delayMs);
    for (const e of list) {
      if (robotsVariantOf(web, e.host) !== 'crawl-delay') continue;
      byHost.set(e.host, [...(byHost.get(e.host) ?? []), e]);
    }
  }
  for (const [host, list] of byHost) check(host, list, crawlDelay);
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
