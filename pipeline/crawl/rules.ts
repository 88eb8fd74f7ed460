/**
 * The crawl's rules that more than one loop applies: the one-process crawl (crawl.ts), the
 * PostgreSQL coordinator (pipeline/distributed) and the estimator's replay
 * (pipeline/schedule/estimate/simulate.ts). Each loop gathers what a rule looks at from its own
 * state (a frontier in memory, tables, arrays) and asks here, so that the rule has one home. The
 * PLD ranking is policy.ts; retries and Retry-After are the fetch's (pipeline/web/retry.ts).
 */
import type { RoundEndRule, Statement } from '../core/index.ts';
import { extractLinks } from '../rdf/index.ts';

/** Where a crawl is: what says whether the round-end rule applies at all. */
export interface RoundPlace {
  /** The round being crawled (0: the seeds). */
  readonly round: number;
  readonly maxRounds: number;
  /** Whether the crawl has a document budget. */
  readonly budgeted: boolean;
}

/** What the round-end rule looks at, as a loop sees it now. */
export interface RoundView extends RoundPlace {
  /** PLDs with URLs of the current round still waiting. */
  readonly active: number;
  /** Fetch slots (the coordinator: those of every live worker; none while no worker is live). */
  readonly slots: number;
  readonly rule: RoundEndRule;
}

/**
 * The observatory paper's round rule: once the seeds are done (round 0 always runs out) and fewer
 * PLDs stay active than there are fetch slots, the rest of the round moves to the next one, so that
 * the next round's PLDs fill the idle slots; worth it only when the next round brings PLDs that
 * are not active now (`incoming`, asked last: it scans candidates), a condition rule `ldspider`
 * leaves out, as DESIGN.md states the rule. A crawl with a budget runs each round out: which URLs
 * join the next round depends on the candidates known when it starts, and ending a round early
 * would make that depend on timing. `mayLook` lets a loop that cannot afford to look often (the
 * one-process crawl looks at most once a second) decline once the cheap conditions hold.
 */
export function endsRoundEarly(
  view: RoundView,
  incoming: () => boolean,
  mayLook: () => boolean = () => true,
): boolean {
  if (!mayEndRoundEarly(view) || view.active >= view.slots || !mayLook()) return false;
  return view.rule === 'ldspider' || incoming();
}

/** Whether the round-end rule can apply at this place: a loop that must query to see more asks first. */
export function mayEndRoundEarly(place: RoundPlace): boolean {
  return place.round >= 1 && place.round + 1 < place.maxRounds && !place.budgeted;
}

/**
 * The links a document below the plan's depth adds as candidates: at most `maxLinks`, in the order
 * its statements give them, its own URL and final URL left out.
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
