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

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
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
      t += Math.max(0, ms);
    },
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}
