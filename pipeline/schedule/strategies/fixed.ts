import { clampInterval, WEEK } from './intervals.ts';
import type { DecisionInput, Strategy } from './types.ts';

export const weekStrategy: Strategy<null> = Object.freeze({
  name: 'week',
  summary: 'every 7 days',
  oracle: false,
  init: () => null,
  next: ({ bounds }: DecisionInput<null>) => ({ interval: clampInterval(WEEK, bounds), state: null }),
});

export const goldStrategy: Strategy<null> = Object.freeze({
  name: 'gold',
  summary: "oracle: the document's true mean change interval (evaluation only)",
  oracle: true,
  init: () => null,
  next({ bounds, truth }: DecisionInput<null>) {
    const interval = truth ? truth.meanChangeInterval : bounds.max;
    return { interval: clampInterval(interval, bounds), state: null };
  },
});
