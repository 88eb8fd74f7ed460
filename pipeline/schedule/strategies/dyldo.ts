import { clampInterval, HOUR, WEEK } from './intervals.ts';
import type { DecisionInput, Strategy } from './types.ts';

/** The observatory's week: 16 slots of 10.5 hours; level L re-visits every 16 / 2^L slots. */
export const SLOTS_PER_WEEK = 16;
export const SLOT_MS = 10.5 * HOUR;
export const MAX_LEVEL = 4;

/**
 * Default number of consecutive unchanged observations at a level before going down one.
 * Going up takes 2 consecutive changes; with changes at rate λ and p = 1 - e^(-λ·interval) the
 * chance of a change per observation, a level is stable where p² = (1 - p)^k. k = 2 balances at
 * p = 0.5, i.e. visits every 0.69 mean change intervals: close to the oracle, slightly more often,
 * and the fastest retreat from a level that costs 2^L downloads a week. The evaluation
 * (docs/strategies.md) compares k = 2, 3, 4.
 */
export const DYLDO_DOWN_AFTER = 2;

/** DyLDO's state: its level and the current runs of changed / unchanged observations at it. */
export interface DyldoState {
  readonly level: number;
  readonly changedRun: number;
  readonly unchangedRun: number;
}

/** The re-visit interval of a level: 168 h / 2^level. */
export function intervalForLevel(level: number): number {
  return WEEK / 2 ** level;
}

/** Slots of 10.5 h between two visits at a level (16, 8, 4, 2, 1). */
export function slotsForLevel(level: number): number {
  return SLOTS_PER_WEEK / 2 ** level;
}

/** The level whose interval is nearest (on a log scale) to `interval`, within 0..4. */
export function levelForInterval(interval: number): number {
  const level = Math.round(Math.log2(WEEK / interval));
  return Math.min(MAX_LEVEL, Math.max(0, level));
}

/**
 * DyLDO's levels (1x, 2x, 4x, 8x, 16x a week): up a level after two consecutive changed
 * observations at the level, down after `downAfter` consecutive unchanged ones. `tick` uses the
 * state's level directly; the evaluation uses the interval (clamped to its bounds like any other).
 */
export function dyldoStrategy(downAfter = DYLDO_DOWN_AFTER): Strategy<DyldoState> {
  const name = downAfter === DYLDO_DOWN_AFTER ? 'dyldo' : `dyldo-${downAfter}`;
  return Object.freeze({
    name,
    summary: `DyLDO levels 1x..16x a week: up after 2 changed observations in a row, down after ${downAfter} unchanged`,
    oracle: false,
    init: (interval: number) => ({ level: levelForInterval(interval), changedRun: 0, unchangedRun: 0 }),
    next({ history, state, bounds }: DecisionInput<DyldoState>) {
      const changed = history.changed(history.length - 1);
      let { level } = state;
      let changedRun = changed ? state.changedRun + 1 : 0;
      let unchangedRun = changed ? 0 : state.unchangedRun + 1;
      if (changedRun >= 2 && level < MAX_LEVEL) {
        level += 1;
        changedRun = 0;
      } else if (unchangedRun >= downAfter && level > 0) {
        level -= 1;
        unchangedRun = 0;
      }
      return {
        interval: clampInterval(intervalForLevel(level), bounds),
        state: { level, changedRun, unchangedRun },
      };
    },
  });
}
