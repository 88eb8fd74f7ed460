import { adjustByRate, clampInterval } from './intervals.ts';
import type { DecisionInput, History, Strategy } from './types.ts';

/**
 * Transition counts per interval value (key: the interval in whole seconds, so that an interval
 * reached again by other steps finds its chain). counts[from * 2 + to], where `from` encodes the
 * last `order` change states (0 unchanged, 1 changed) as a binary number, oldest first.
 */
export interface MarkovState {
  readonly chains: Readonly<Record<string, readonly number[]>>;
}

function statesCode(history: History, end: number, order: number): number {
  let code = 0;
  for (let i = end - order; i < end; i++) code = code * 2 + (history.changed(i) ? 1 : 0);
  return code;
}

/**
 * state-1 / state-2: a Markov chain over change states for each interval value. The newest
 * observation adds one transition (from the `order` states before it) to the chain of the interval
 * it was made at; p = P(change next | last `order` states) from the current interval's chain
 * replaces r in the window rule. Until that chain has seen the current states, the interval stays.
 */
function markovStrategy(order: 1 | 2): Strategy<MarkovState> {
  return Object.freeze({
    name: `state-${order}`,
    summary: `Markov chain over the last ${order} change state${order > 1 ? 's' : ''}, per interval value; p replaces r in the window rule`,
    oracle: false,
    init: () => ({ chains: {} }),
    next({ history, interval, state, bounds }: DecisionInput<MarkovState>) {
      const n = history.length;
      const key = String(Math.round(interval / 1000));
      let chains = state.chains;
      if (n > order) {
        const from = statesCode(history, n - 1, order);
        const counts = [...(chains[key] ?? new Array(2 ** (order + 1)).fill(0))];
        counts[from * 2 + (history.changed(n - 1) ? 1 : 0)] += 1;
        chains = { ...chains, [key]: counts };
      }
      const chain = chains[key];
      if (!chain || n < order) return { interval, state: { chains } };
      const now = statesCode(history, n, order);
      const seen = chain[now * 2] + chain[now * 2 + 1];
      if (seen === 0) return { interval, state: { chains } };
      const p = chain[now * 2 + 1] / seen;
      return { interval: clampInterval(adjustByRate(interval, p), bounds), state: { chains } };
    },
  });
}

export const stateOneStrategy = markovStrategy(1);
export const stateTwoStrategy = markovStrategy(2);
