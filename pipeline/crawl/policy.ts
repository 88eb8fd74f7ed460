/*
 * Which ready PLD a free fetch slot serves next (the config's `policy`). The crawl's makespan is
 * bounded below by the busiest PLD (requests x delay), so the default serves the PLD with the most
 * remaining work first (longest-processing-time first): it never lets a long queue idle while short
 * ones run. Round-robin is the classic behaviour, kept for comparison.
 */
import type { PolicyName } from '../core/index.ts';

/** What a policy sees of a PLD that could be served now. */
export interface ReadyPld {
  readonly pld: string;
  /** URLs of this PLD queued in the current round. */
  readonly queued: number;
  /** The PLD's effective delay between request starts (ms). */
  readonly delayMs: number;
  /** Sequence number of the last time this PLD was served (0 = never). */
  readonly lastServed: number;
}

/** The named policy's order of ready PLDs: negative when `a` is to be served before `b`. */
export function compareReady(policy: PolicyName, a: ReadyPld, b: ReadyPld): number {
  if (policy === 'round-robin') return a.lastServed - b.lastServed || (a.pld < b.pld ? -1 : 1);
  return b.queued * b.delayMs - a.queued * a.delayMs || b.queued - a.queued || (a.pld < b.pld ? -1 : 1);
}

/** Orders ready PLDs, best first, for the named policy. */
export function rankReady(policy: PolicyName, ready: ReadyPld[]): ReadyPld[] {
  return ready.sort((a, b) => compareReady(policy, a, b));
}
