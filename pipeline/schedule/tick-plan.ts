import type { ScheduleEntry } from '../core/index.ts';
import {
  DYLDO_DOWN_AFTER,
  type DyldoState,
  dyldoStrategy,
  SLOT_MS,
  SLOTS_PER_WEEK,
} from './strategies/dyldo.ts';
import { PAPER_BOUNDS, WEEK } from './strategies/intervals.ts';
import { ObservationLog } from './strategies/observation-log.ts';

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
 * The DyLDO levels of the observatory paper (up a level after changes in two consecutive
 * observations at its level) with a move-down rule of this project's own, not the paper's (down
 * after DYLDO_DOWN_AFTER consecutive unchanged ones), as the strategies module implements it for
 * the evaluation too: one implementation for both.
 */
const tickStrategy = dyldoStrategy(DYLDO_DOWN_AFTER);

function parseState(entry: ScheduleEntry | undefined): DyldoState {
  if (!entry) return tickStrategy.init(WEEK);
  return JSON.parse(entry.state) as DyldoState;
}

/**
 * The kernel's schedule after a crawl observed at `observedAt` (the slot start): observed
 * documents move by the rule and are due again one level interval later; the others keep their
 * entries. `kernel` (weekly snapshots) adds new kernel documents at level 0 and drops ones that left.
 */
export function nextSchedule(options: {
  readonly previous: readonly ScheduleEntry[];
  readonly observations: readonly Observation[];
  readonly observedAt: number;
  readonly kernel?: readonly string[];
}): ScheduleEntry[] {
  const previous = new Map(options.previous.map((e) => [e.url, e]));
  const observed = new Map(options.observations.map((o) => [o.url, o.changed]));
  const urls = options.kernel ?? [...previous.keys()];
  const log = new ObservationLog(1);
  return [...new Set(urls)].sort().map((url) => {
    const before = previous.get(url);
    let state = parseState(before);
    if (observed.has(url)) {
      const changed = observed.get(url);
      // a failed fetch (or a first sighting) gives nothing to compare: the level stays as it is
      if (changed !== null && changed !== undefined) {
        log.reset(options.observedAt);
        log.push(options.observedAt, changed);
        state = tickStrategy.next({
          history: log,
          interval: WEEK / 2 ** state.level,
          state,
          bounds: PAPER_BOUNDS,
        }).state;
      }
      const intervalMs = WEEK / 2 ** state.level;
      return entry(url, state, intervalMs, options.observedAt + intervalMs);
    }
    if (before) return before;
    return entry(url, state, WEEK, options.observedAt + WEEK);
  });
}

function entry(url: string, state: DyldoState, intervalMs: number, nextDue: number): ScheduleEntry {
  return {
    url,
    level: state.level,
    intervalMs,
    nextDue,
    strategy: tickStrategy.name,
    state: JSON.stringify(state),
  };
}
