import type { ScheduleEntry } from '../core/index.ts';
import { ObservatoryError, quoteInput } from '../core/index.ts';
import {
  baselineOnly,
  loadHistory,
  readLiveState,
  type StoredHistory,
  storeHistory,
  writeLiveState,
} from './live-state.ts';
import { levelForInterval, SLOT_MS, SLOTS_PER_WEEK } from './strategies/dyldo.ts';
import { WEEK } from './strategies/intervals.ts';
import { ObservationLog } from './strategies/observation-log.ts';
import { defaultStrategy, strategyByName } from './strategies/registry.ts';
import type { Bounds, Strategy } from './strategies/types.ts';

/** Where a moment falls in the observatory's week: 16 slots of 10.5 h from the week's boundary. */
export interface WeekPosition {
  readonly weekStart: number;
  /** 0 is the weekly snapshot's own slot; 1..15 are the interval crawls. */
  readonly slot: number;
  readonly slotStart: number;
}

/**
 * The week's boundary: 00:00 UTC of the day a weekly snapshot is named by (its folder, YYYY-MM-DD).
 * Never the snapshot's measured start, which lies a few milliseconds (or hours) after the
 * boundary: slots counted from it would start that much late, and a tick run at the first
 * instant of a slot would fall into the slot before.
 */
export function weekStartOf(weeklyName: string): number {
  const start = Date.parse(`${weeklyName}T00:00:00Z`);
  if (Number.isNaN(start)) throw new Error(`not a weekly snapshot name: ${weeklyName}`);
  return start;
}

/** The slot `now` falls in, or null once the week is over (the next weekly snapshot is due). */
export function weekPosition(weekStart: number, now: number): WeekPosition | null {
  const slot = Math.floor((now - weekStart) / SLOT_MS);
  if (slot < 0 || slot >= SLOTS_PER_WEEK) return null;
  return { weekStart, slot, slotStart: weekStart + slot * SLOT_MS };
}

/**
 * Kernel documents due in a slot: those whose next visit is at or before the slot's start. A
 * document whose slot was missed (downtime) is due in the next slot that runs, once.
 */
export function dueUrls(schedule: readonly ScheduleEntry[], slotStart: number): string[] {
  // a minute of slack so that rounding in stored times never pushes a document into the next slot
  return schedule.filter((e) => e.nextDue <= slotStart + 60_000).map((e) => e.url);
}

/** One kernel document's observation in a crawl: changed vs its previous observation (null: none to compare). */
export interface Observation {
  readonly url: string;
  readonly changed: boolean | null;
}

/**
 * The interval range a live strategy is given: at least a slot (the finest the week is cut into),
 * at most a week, since the weekly snapshot observes every kernel document anyway.
 */
export const LIVE_BOUNDS: Bounds = Object.freeze({ min: SLOT_MS, max: WEEK });

/**
 * The strategy `tick` and the weekly snapshot schedule with: any of the registry (`dyldo-K`
 * included) but an oracle, which reads each document's true change rate that no crawl knows.
 */
export function liveStrategy(name: string = defaultStrategy): Strategy {
  const strategy = strategyByName(name);
  if (strategy.oracle)
    throw new ObservatoryError(
      'invalid_input',
      `strategy ${quoteInput(name)} is an oracle (it reads the true change rate, for \`evaluate\` only) and cannot schedule crawls: choose another, e.g. ${defaultStrategy} or dyldo`,
    );
  return strategy;
}

/**
 * A strategy's interval on the week's slots: the nearest whole number of 10.5 h slots, 1 to 16
 * (a tick crawls what is due at its slot's start, so no finer interval can be kept).
 */
export function slotInterval(interval: number): number {
  return Math.min(SLOTS_PER_WEEK, Math.max(1, Math.round(interval / SLOT_MS))) * SLOT_MS;
}

/** What a document's previous entry leaves for the next decision under `strategy`. */
function continued(before: ScheduleEntry | undefined, strategy: Strategy) {
  if (!before) return { state: strategy.init(WEEK), history: null, interval: WEEK };
  const stored = readLiveState(before);
  return {
    // another strategy's state means nothing to this one: it starts afresh from the interval in force
    state: before.strategy === strategy.name ? stored.state : strategy.init(before.intervalMs),
    // an entry without a history (DyLDO's, before histories were kept) was last observed one interval before it is due
    history: stored.history ?? baselineOnly(before.nextDue - before.intervalMs),
    interval: before.intervalMs,
  };
}

/**
 * The kernel's schedule after a crawl observed at `observedAt` (the slot start): each observed
 * document's verdict joins its history, `strategy` decides its next interval from the history
 * and its state, and the interval is rounded to the slots; it is due again that much later. The
 * others keep their entries. `kernel` (weekly snapshots) adds new kernel documents, due a week
 * later, and drops ones that left.
 */
export function nextSchedule(options: {
  readonly previous: readonly ScheduleEntry[];
  readonly observations: readonly Observation[];
  readonly observedAt: number;
  readonly strategy: Strategy;
  readonly kernel?: readonly string[];
}): ScheduleEntry[] {
  const { observedAt, strategy } = options;
  const previous = new Map(options.previous.map((e) => [e.url, e]));
  const observed = new Map(options.observations.map((o) => [o.url, o.changed]));
  const urls = options.kernel ?? [...previous.keys()];
  const log = new ObservationLog();
  const entry = (url: string, state: unknown, history: StoredHistory, intervalMs: number): ScheduleEntry => ({
    url,
    level: levelForInterval(intervalMs),
    intervalMs,
    nextDue: observedAt + intervalMs,
    strategy: strategy.name,
    state: writeLiveState({ state, history }),
  });
  return [...new Set(urls)].sort().map((url) => {
    const before = previous.get(url);
    if (!observed.has(url) && before) return before;
    const { state, history, interval } = continued(before, strategy);
    const changed = observed.get(url);
    // a failed fetch or a first sighting (the baseline) gives nothing to compare: the interval stays
    if (changed === null || changed === undefined || !history)
      return entry(url, state, history ?? baselineOnly(observedAt), interval);
    loadHistory(history, log);
    // a logical clock (--now) given out of order: no observation after the newest one was made
    if (observedAt <= (log.length > 0 ? log.at(log.length - 1) : log.start))
      return entry(url, state, history, interval);
    log.push(observedAt, changed);
    const decision = strategy.next({ history: log, interval, state, bounds: LIVE_BOUNDS });
    return entry(url, decision.state, storeHistory(log), slotInterval(decision.interval));
  });
}
