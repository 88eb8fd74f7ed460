/**
 * What goes wrong in the year, and when: a table of faults, each placed by a seeded random stream
 * at a week and a slot (16 slots of 10.5 h a week; slot 0 is the weekly snapshot's). The quiet
 * weeks at both ends (the first two, the last one) hold none, so the week-2 and last-week figures
 * the goals compare are measured on an ordinary week.
 */
import { seededRandom } from '../../pipeline/schedule/index.ts';

/** The phase a SIGKILL hits. */
export type KillTarget = 'weekly-crawl' | 'weekly-publish' | 'tick-crawl' | 'tick-publish' | 'portal';

export type YearEvent =
  | { readonly kind: 'kill'; readonly target: KillTarget }
  /** The snapshots' file system fills up while a run writes (publishing a weekly, crawling a tick). */
  | { readonly kind: 'disk-full'; readonly target: 'weekly-publish' | 'tick-crawl' }
  /** The machine's clock is off by `offsetMs` for the runs of this slot and the next (then NTP steps it back). */
  | { readonly kind: 'clock'; readonly offsetMs: number }
  /** One PLD does not answer from here for `days` days. */
  | { readonly kind: 'outage'; readonly days: number }
  /** `observatory expand` again after the slot's tick: the next weekly snapshot crawls the new kernel. */
  | { readonly kind: 'expand' }
  /** The weekly snapshot is still running when the next slot's tick fires: two runs at once. */
  | { readonly kind: 'slow-snapshot' }
  /** The old version's weekly crawl is killed mid-crawl, the new version installed and `migrate` run. */
  | { readonly kind: 'upgrade' };

export interface PlannedEvent {
  readonly week: number;
  readonly slot: number;
  readonly event: YearEvent;
}

const HOUR = 3_600_000;

/** Events that need the weekly snapshot's slot (one per week), in the order weeks are handed out. */
const WEEKLY_EVENTS: readonly YearEvent[] = [
  ...Array.from({ length: 5 }, () => ({ kind: 'kill', target: 'weekly-crawl' }) as const),
  ...Array.from({ length: 4 }, () => ({ kind: 'kill', target: 'weekly-publish' }) as const),
  { kind: 'disk-full', target: 'weekly-publish' },
  { kind: 'slow-snapshot' },
];

/** Events at a tick's slot (1..15), several a week. */
const TICK_EVENTS: readonly YearEvent[] = [
  ...Array.from({ length: 3 }, () => ({ kind: 'kill', target: 'tick-crawl' }) as const),
  ...Array.from({ length: 3 }, () => ({ kind: 'kill', target: 'tick-publish' }) as const),
  { kind: 'disk-full', target: 'tick-crawl' },
];

/** Portal builds killed: one build a week, so one kill per week. */
const PORTAL_KILLS = 4;

/** The SIGKILLs of a full year: the upgrade's kill of the old version is the twentieth. */
export const YEAR_KILLS =
  WEEKLY_EVENTS.filter((e) => e.kind === 'kill').length +
  TICK_EVENTS.filter((e) => e.kind === 'kill').length +
  PORTAL_KILLS +
  1;

function shuffle<T>(list: T[], random: () => number): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** The week of the upgrade: the first half of the year runs the old version. */
export const upgradeWeek = (weeks: number) => Math.floor(weeks / 2);

/**
 * The year's faults for `weeks` weeks (at least 4): the upgrade at the middle week's slot 0, the
 * rest placed by `seed` in the weeks between the quiet ones. A short year holds as many of the
 * weekly-slot events as it has weeks for (the others are left out, and the report says so).
 */
export function planYear(weeks: number, seed: number): { events: PlannedEvent[]; leftOut: YearEvent[] } {
  if (weeks < 4) throw new Error(`a year needs at least 4 weeks, got ${weeks}`);
  const random = seededRandom(seed);
  const upgrade = upgradeWeek(weeks);
  const first = 2;
  const last = weeks - 3;
  const eventful = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const events: PlannedEvent[] = [{ week: upgrade, slot: 0, event: { kind: 'upgrade' } }];
  const leftOut: YearEvent[] = [];

  const weeklyWeeks = shuffle(
    eventful.filter((w) => w !== upgrade),
    random,
  );
  for (const event of WEEKLY_EVENTS) {
    const week = weeklyWeeks.shift();
    if (week === undefined) leftOut.push(event);
    else events.push({ week, slot: 0, event });
  }

  const taken = new Set(events.map((e) => `${e.week}:${e.slot}`));
  const freeSlot = (
    slots: readonly number[],
    weeksFrom: readonly number[] = eventful,
  ): { week: number; slot: number } | null => {
    for (let attempt = 0; weeksFrom.length > 0 && attempt < 1000; attempt++) {
      const week = weeksFrom[Math.floor(random() * weeksFrom.length)];
      const slot = slots[Math.floor(random() * slots.length)];
      // the slot after a weekly-slot event stays free too: a slow snapshot's tick is that slot's
      if (!taken.has(`${week}:${slot}`) && !(slot === 1 && taken.has(`${week}:0`))) {
        taken.add(`${week}:${slot}`);
        return { week, slot };
      }
    }
    return null;
  };
  const tickSlots = Array.from({ length: 15 }, (_, i) => i + 1);
  const place = (event: YearEvent, slots: readonly number[], weeksFrom?: readonly number[]) => {
    const at = freeSlot(slots, weeksFrom);
    if (at) events.push({ ...at, event });
    else leftOut.push(event);
  };
  for (const event of TICK_EVENTS) place(event, tickSlots);
  // the clock: back an hour, forward a day, each in a slot of its own (the weekly's included)
  place({ kind: 'clock', offsetMs: -HOUR }, [0, ...tickSlots]);
  place({ kind: 'clock', offsetMs: 24 * HOUR }, [0, ...tickSlots]);
  // a month down, over before the quiet weeks at the end
  const outageDays = 30;
  place(
    { kind: 'outage', days: outageDays },
    tickSlots,
    eventful.filter((w) => w + Math.ceil(outageDays / 7) <= last),
  );
  // the re-expansion runs after the last tick of a week, so the next weekly crawls the new kernel
  place({ kind: 'expand' }, [15]);
  // portal builds follow the weekly snapshot: a kill in the portal's slot of a week
  for (const week of shuffle([...eventful], random).slice(0, PORTAL_KILLS))
    events.push({ week, slot: 0, event: { kind: 'kill', target: 'portal' } });
  for (
    let i = events.filter((e) => e.event.kind === 'kill' && e.event.target === 'portal').length;
    i < PORTAL_KILLS;
    i++
  )
    leftOut.push({ kind: 'kill', target: 'portal' });
  return { events: events.sort((a, b) => a.week - b.week || a.slot - b.slot), leftOut };
}

/** One line for the report: what happened, in words. */
export function describeEvent(event: YearEvent): string {
  switch (event.kind) {
    case 'kill':
      return `SIGKILL (${event.target.replace('-', ' ')})`;
    case 'disk-full':
      return `disk full (${event.target.replace('-', ' ')})`;
    case 'clock':
      return event.offsetMs < 0 ? 'clock back 1 h' : 'clock forward 1 day';
    case 'outage':
      return `PLD unreachable for ${event.days} days`;
    case 'expand':
      return 'kernel re-expanded';
    case 'slow-snapshot':
      return 'slow snapshot, next tick started beside it';
    case 'upgrade':
      return 'upgrade (old version killed mid-crawl, new version, migrate)';
  }
}
