import { type Clock, ObservatoryError } from '../core/index.ts';

/** One exchange's whole-fetch limit: `ms` of clock time, not counting the time its body waited for memory. */
export interface Deadline {
  /** Aborts with a `timeout` ObservatoryError once the time is up. */
  readonly signal: AbortSignal;
  /** Runs `wait` with the deadline stopped: the crawl's memory budget is slow then, not the server. */
  excluding<T>(wait: () => Promise<T>): Promise<T>;
  /** The exchange is over: no timer is left behind. */
  clear(): void;
}

/** Starts the deadline of an exchange sent now. */
export function startDeadline(clock: Clock, ms: number): Deadline {
  const expired = new AbortController();
  let left = ms;
  let armedAt = 0;
  let timer: AbortController | null = null;
  const arm = () => {
    const t = new AbortController();
    timer = t;
    armedAt = clock.now();
    clock.sleep(left, t.signal).then(
      () => expired.abort(new ObservatoryError('timeout', `no complete response within ${ms} ms`)),
      () => {},
    );
  };
  const disarm = () => {
    timer?.abort();
    timer = null;
  };
  arm();
  return {
    signal: expired.signal,
    async excluding(wait) {
      if (timer === null) return wait();
      disarm();
      left -= clock.now() - armedAt;
      try {
        return await wait();
      } finally {
        if (!expired.signal.aborted) arm();
      }
    },
    clear: disarm,
  };
}
