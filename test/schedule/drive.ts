import { ObservationLog } from '../../pipeline/schedule/strategies/observation-log.ts';
import type { Bounds, Strategy } from '../../pipeline/schedule/strategies/types.ts';

/**
 * Feeds a strategy a scripted run of observations ('1' changed, '0' not), each made one current
 * interval after the one before, and returns the interval it answers after each observation.
 */
export function drive(
  strategy: Strategy,
  script: string,
  start: number,
  bounds: Bounds,
  meanChangeInterval = 0,
): number[] {
  const log = new ObservationLog(4);
  log.reset(0);
  let interval = start;
  let state = strategy.init(interval);
  let t = 0;
  const out: number[] = [];
  for (const c of script) {
    t += interval;
    log.push(t, c === '1');
    const d = strategy.next({ history: log, interval, state, bounds, truth: { meanChangeInterval } });
    interval = d.interval;
    state = d.state;
    out.push(interval);
  }
  return out;
}
