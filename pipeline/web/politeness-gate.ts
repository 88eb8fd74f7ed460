import type { Clock, CrawlConfig } from '../core/index.ts';
import {
  confirmRequest,
  endRequest,
  newPldState,
  type PldState,
  penaliseState,
  readyTime,
  startRequest,
} from './pld-state.ts';

/** The right to send one request to a PLD; hand it back with `release` when the exchange is over. */
export interface Permit {
  /** The request reached the server (response headers arrived) or failed: the delay counts from now. */
  confirm(): void;
  /** The exchange is over (body read or abandoned); confirms too if that was not done. */
  release(): void;
}

/**
 * Every request the fetcher sends waits here first, so that two requests to one PLD start at
 * least its delay apart and at most `perPld` are in flight. The crawler asks `readyAt` to pick
 * PLDs without blocking its fetch slots; `acquire` is the enforcement.
 */
export interface PolitenessGate {
  /** Clock time at which a new request to `pld` could start; Infinity while one is in flight and unconfirmed. */
  readyAt(pld: string): number;
  /** Waits (FIFO per PLD) until a request to `pld` may start; rejects with the signal's reason on abort. */
  acquire(pld: string, signal?: AbortSignal): Promise<Permit>;
  /** Holds `pld` back until `untilMs` (Retry-After, backoff), bounded by the Crawl-delay cap. */
  penalise(pld: string, untilMs: number): void;
  /** Raises the PLD's delay to a robots.txt Crawl-delay (capped); never lowers it below the configured delay. */
  setCrawlDelay(pld: string, crawlDelayMs: number): void;
  /** The delay now in force for `pld`. */
  delayOf(pld: string): number;
}

/**
 * Told when a request to a PLD waits, starts and ends at the gate, at the moment it happens: what an
 * instrument needs to tell politeness from everything else that keeps a PLD idle (crawl/idle-gaps.ts).
 * Optional, so that a crawl without one pays nothing. Must be cheap and must not throw.
 */
export interface GateObserver {
  /** A request to `pld` starts waiting at the gate. */
  waiting(pld: string): void;
  /** A request to `pld` is let through: it is sent now. */
  granted(pld: string): void;
  /** A request to `pld` is over; the next may start in `readyInMs` at the earliest (Infinity: not until another ends). */
  released(pld: string, readyInMs: number): void;
  /** The earliest next start of `pld` moved later (a penalty, a Crawl-delay): `readyInMs` from now. */
  held(pld: string, readyInMs: number): void;
}

interface Waiter {
  resolve(permit: Permit): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Entry {
  state: PldState;
  waiters: Waiter[];
  timer: AbortController | null;
}

/** The gate for one crawl: one per fetcher, shared by documents, redirect hops, retries and robots.txt. */
export function createPolitenessGate(
  config: Pick<CrawlConfig, 'delayMs' | 'perPld' | 'crawlDelayCapMs'>,
  clock: Clock,
  observer?: GateObserver,
): PolitenessGate {
  const entries = new Map<string, Entry>();

  const entryOf = (pld: string): Entry => {
    let entry = entries.get(pld);
    if (!entry) {
      entry = { state: newPldState(config.delayMs), waiters: [], timer: null };
      entries.set(pld, entry);
    }
    return entry;
  };

  const permitFor = (pld: string, entry: Entry): Permit => {
    let confirmed = false;
    let released = false;
    const confirm = () => {
      if (confirmed) return;
      confirmed = true;
      confirmRequest(entry.state, clock.now());
      pump(pld, entry);
    };
    return {
      confirm,
      release() {
        if (released) return;
        released = true;
        endRequest(entry.state);
        if (!confirmed) {
          confirmed = true;
          confirmRequest(entry.state, clock.now());
        }
        observer?.released(pld, readyTime(entry.state, config.perPld) - clock.now());
        pump(pld, entry);
      },
    };
  };

  const wake = (pld: string, entry: Entry, ms: number) => {
    const timer = new AbortController();
    entry.timer = timer;
    clock.sleep(ms, timer.signal).then(
      () => {
        entry.timer = null;
        pump(pld, entry);
      },
      () => {},
    );
  };

  function pump(pld: string, entry: Entry): void {
    if (entry.timer) return;
    while (entry.waiters.length > 0) {
      const now = clock.now();
      const at = readyTime(entry.state, config.perPld);
      if (at === Number.POSITIVE_INFINITY) return; // confirm or release pumps again
      if (now < at) {
        wake(pld, entry, at - now);
        return;
      }
      const waiter = entry.waiters.shift()!;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      startRequest(entry.state, now);
      observer?.granted(pld);
      waiter.resolve(permitFor(pld, entry));
    }
  }

  return {
    readyAt(pld) {
      const entry = entries.get(pld);
      if (!entry) return clock.now();
      const at = readyTime(entry.state, config.perPld);
      return at + entry.waiters.length * entry.state.delayMs;
    },
    acquire(pld, signal) {
      return new Promise<Permit>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const entry = entryOf(pld);
        const waiter: Waiter = { resolve, reject, signal };
        if (signal) {
          waiter.onAbort = () => {
            const i = entry.waiters.indexOf(waiter);
            if (i >= 0) entry.waiters.splice(i, 1);
            if (entry.waiters.length === 0 && entry.timer) {
              entry.timer.abort();
              entry.timer = null;
            }
            reject(signal.reason);
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        entry.waiters.push(waiter);
        observer?.waiting(pld);
        pump(pld, entry);
      });
    },
    penalise(pld, untilMs) {
      const state = entryOf(pld).state;
      penaliseState(state, Math.min(untilMs, clock.now() + config.crawlDelayCapMs));
      observer?.held(pld, readyTime(state, config.perPld) - clock.now());
    },
    setCrawlDelay(pld, crawlDelayMs) {
      const state = entryOf(pld).state;
      state.delayMs = Math.max(state.delayMs, Math.min(crawlDelayMs, config.crawlDelayCapMs));
      observer?.held(pld, readyTime(state, config.perPld) - clock.now());
    },
    delayOf(pld) {
      return entries.get(pld)?.state.delayMs ?? config.delayMs;
    },
  };
}
