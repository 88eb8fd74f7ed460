import { clampInterval, MONTH, WEEK } from './intervals.ts';
import type { Decision, DecisionInput, Strategy } from './types.ts';

/** Observations made since the interval last changed: fix and dyn only judge those. */
export interface StreakState {
  readonly atInterval: number;
}

/** dyn's number of observations to look at: fewer for long intervals, where each one costs more time. */
export function dynLookBack(interval: number): number {
  if (interval > 2 * MONTH) return 1;
  if (interval > MONTH) return 2;
  if (interval > WEEK) return 3;
  // "4 if over 1 day": the paper's lower bound, 1 day itself, gets 4 as well
  return 4;
}

/**
 * The fix/dyn rule: once k observations were made at the current interval, shorten it if all k
 * saw a change (by 1.5 over a month, else 2), lengthen it if none did (by 1.5 under a month, else
 * 2), keep it otherwise. The window of k slides: every later observation is judged with the k-1
 * before it, as long as the interval stays the same.
 */
function streakDecision(input: DecisionInput<StreakState>, k: number): Decision<StreakState> {
  const { history, interval, bounds } = input;
  const atInterval = input.state.atInterval + 1;
  if (atInterval < k) return { interval, state: { atInterval } };
  const n = history.length;
  const changed = history.changedCount(n - k, n);
  let next = interval;
  if (changed === k) next = interval / (interval > MONTH ? 1.5 : 2);
  else if (changed === 0) next = interval * (interval < MONTH ? 1.5 : 2);
  next = clampInterval(next, bounds);
  return { interval: next, state: { atInterval: next === interval ? atInterval : 0 } };
}

export const fixStrategy: Strategy<StreakState> = Object.freeze({
  name: 'fix',
  summary: 'last 2 observations at the current interval: all changed -> shorter, none -> longer',
  oracle: false,
  init: () => ({ atInterval: 0 }),
  next: (input: DecisionInput<StreakState>) => streakDecision(input, 2),
});

export const dynStrategy: Strategy<StreakState> = Object.freeze({
  name: 'dyn',
  summary: 'as fix, but looks at 1-4 observations depending on the interval (fewer when long)',
  oracle: false,
  init: () => ({ atInterval: 0 }),
  next: (input: DecisionInput<StreakState>) => streakDecision(input, dynLookBack(input.interval)),
});
