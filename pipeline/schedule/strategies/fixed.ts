import { clampInterval, WEEK } from './intervals.ts';
import type { DecisionInput, Strategy } from './types.ts';

export const weekStrategy: Strategy<null> = Object.freeze({
  name: 'week',
  summary: 'every 7 days',
  oracle: false,
  init: () => null,
  next: ({ bounds }: DecisionInput<null>) => ({ interval: clampInterval(WEEK, bounds), state: null }),
});

/**
 * Oracle (evaluation only): visits every `scale` x the document's true mean change interval. It
 * knows each document's rate but not when its changes come, so on bursty documents it is the
 * bound of rate-based policies, not of every policy.
 */
export function goldScaled(scale: number): Strategy<null> {
  return Object.freeze({
    name: scale === 1 ? 'gold' : `gold-x${scale}`,
    summary: `oracle: ${scale === 1 ? '' : `${scale} x `}the document's true mean change interval (evaluation only)`,
    oracle: true,
    init: () => null,
    next({ bounds, truth }: DecisionInput<null>) {
      const interval = truth ? scale * truth.meanChangeInterval : bounds.max;
      return { interval: clampInterval(interval, bounds), state: null };
    },
  });
}

export const goldStrategy: Strategy<null> = goldScaled(1);
