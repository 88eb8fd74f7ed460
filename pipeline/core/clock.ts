/**
 * Time is injected: stages never read Date.now() themselves. The demo and the tests run weeks of
 * observatory on a logical clock, while waits (politeness, timeouts) still pass in real time.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as this clock sees it. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time (rejects if the signal aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay a Node timer takes (2^31-1 ms, ~24.8 days); a longer one warns and fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Sleeps in real time for any `ms` a clock difference can give: negative or NaN is 0, and a wait
 * longer than a timer can hold is slept in timer-sized steps (a single overflowing timer would fire
 * at once, and a caller waiting for that time would spin).
 */
function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let left = Math.max(0, ms || 0); // NaN (a difference with an undefined time) is 0 too
    let timer: ReturnType<typeof setTimeout>;
    const step = () => {
      const chunk = Math.min(left, MAX_TIMER_MS);
      left -= chunk;
      timer = setTimeout(() => {
        if (left > 0) return step();
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, chunk);
    };
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    step();
  });
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now(), sleep: realSleep });

/** A clock that reads `startMs` at creation and then advances in real time: what `--now` gives a command. */
export function clockStartingAt(startMs: number): Clock {
  const offset = startMs - performance.now();
  return Object.freeze({ now: () => Math.round(offset + performance.now()), sleep: realSleep });
}

/** A clock that only moves when told to; sleeping advances it at once. For pure logic and simulations. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(startMs = 0): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += Math.max(0, ms || 0);
    },
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}
