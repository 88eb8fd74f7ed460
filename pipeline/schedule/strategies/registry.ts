import { ObservatoryError, quoteInput } from '../../core/index.ts';
import { burstStrategy } from './burst-aware.ts';
import { dynStrategy, fixStrategy } from './change-streak.ts';
import { dyldoStrategy } from './dyldo.ts';
import { goldScaled, goldStrategy, weekStrategy } from './fixed.ts';
import { stateOneStrategy, stateTwoStrategy } from './markov.ts';
import { RATE_DEFAULTS, rateStrategy } from './rate-allocation.ts';
import type { Strategy } from './types.ts';
import { windowHalfStrategy, windowTenStrategy } from './window.ts';

/** The rescheduling paper's strategies plus DyLDO's levels: what ours must beat. */
export const PUBLISHED_STRATEGIES: readonly string[] = Object.freeze([
  'fix',
  'dyn',
  'window',
  'window-half',
  'state-1',
  'state-2',
  'week',
  'dyldo',
]);

/** The strategy `evaluate` recommends and `tick` may adopt (see docs/strategies.md for why). */
export const defaultStrategy = 'cho-irregular';

/** Every strategy by name. */
export const STRATEGIES: Readonly<Record<string, Strategy>> = Object.freeze(
  Object.fromEntries(
    [
      fixStrategy,
      dynStrategy,
      windowTenStrategy,
      windowHalfStrategy,
      stateOneStrategy,
      stateTwoStrategy,
      weekStrategy,
      goldStrategy,
      dyldoStrategy(),
      rateStrategy({ estimator: 'regular', ...RATE_DEFAULTS }),
      rateStrategy({ estimator: 'irregular', ...RATE_DEFAULTS }),
      burstStrategy(),
    ].map((s) => [s.name, s as Strategy]),
  ),
);

/**
 * The strategies with one budget knob (`scale`, multiple of the estimated mean change interval
 * between visits) that `evaluate` can compare with the published ones at equal downloads; `gold`
 * is the oracle bound (it reads the truth).
 */
export const SCALED_FAMILIES: Readonly<Record<string, (scale: number) => Strategy>> = Object.freeze({
  'cho-irregular': (scale: number) =>
    rateStrategy({ estimator: 'irregular', ...RATE_DEFAULTS, scale }) as Strategy,
  burst: (scale: number) => burstStrategy({ scale }) as Strategy,
  gold: (scale: number) => goldScaled(scale) as Strategy,
});

/** Looks a strategy up by name (`dyldo-K`: DyLDO going down after K unchanged); unknown names are bad input. */
export function strategyByName(name: string): Strategy {
  const down = /^dyldo-([1-9]\d?)$/.exec(name);
  if (down) return dyldoStrategy(Number(down[1])) as Strategy;
  const strategy = STRATEGIES[name];
  if (!strategy) {
    throw new ObservatoryError(
      'invalid_input',
      `unknown strategy ${quoteInput(name)}: expected one of ${Object.keys(STRATEGIES).join(', ')}`,
    );
  }
  return strategy;
}
