import type { CatalogueEntry } from '../../pipeline/snapshot/index.ts';
import { snapshotName } from '../../pipeline/snapshot/index.ts';
import type { RunRecord, SlotRecord } from './year.ts';

/** How one slot of the year ended up, judged from the final catalogue and the runs that wrote it. */
export type SlotOutcome =
  | { readonly kind: 'on-time' }
  | { readonly kind: 'late' | 'early'; readonly why: string }
  | { readonly kind: 'missed'; readonly why: string }
  | { readonly kind: 'nothing-due' };

/** Whether the run published the folder `name` (a line `published <path>/<name>: ...`), and resumed it. */
function published(run: RunRecord, name: string): 'fresh' | 'resumed' | null {
  const line = run.said.split('\n').find((l) => new RegExp(`published \\S*/${name}[:\\s]`).test(l));
  return line === undefined ? null : line.includes('(resumed)') ? 'resumed' : 'fresh';
}

/**
 * Each slot's outcome: published by the run started at that slot (on time), by a later run (late:
 * resumed after a kill or a full disk, or a tick that waited for the lock), by an earlier one (early:
 * a clock ahead), not at all although documents were due (missed), or nothing due.
 */
export function slotOutcomes(
  slots: readonly SlotRecord[],
  runs: readonly RunRecord[],
  catalogue: readonly CatalogueEntry[],
  start: number,
  slotMs: number,
  slotsPerWeek: number,
): Map<SlotRecord, SlotOutcome> {
  const names = new Set(catalogue.map((e) => e.name));
  const out = new Map<SlotRecord, SlotOutcome>();
  for (const slot of slots) {
    const g = slot.week * slotsPerWeek + slot.slot;
    const slotStart = start + g * slotMs;
    const name = snapshotName(slot.slot === 0 ? 'weekly' : 'interval', slotStart);
    const command = slot.slot === 0 ? 'snapshot' : 'tick';
    const own = runs.filter((r) => r.week === slot.week && r.slot === slot.slot && r.command === command);
    const publisher = runs.find(
      (r) => (r.command === 'snapshot' || r.command === 'tick') && published(r, name) !== null,
    );
    if (names.has(name) && publisher) {
      const pg = publisher.week * slotsPerWeek + publisher.slot;
      const resumed = published(publisher, name) === 'resumed';
      const by = `by the ${publisher.command} of week ${publisher.week + 1} slot ${publisher.slot}${resumed ? ' (resumed)' : ''}`;
      if (pg === g && !resumed) out.set(slot, { kind: 'on-time' });
      else if (pg < g) out.set(slot, { kind: 'early', why: `${by}, its clock ahead` });
      else out.set(slot, { kind: 'late', why: by });
    } else if (names.has(name))
      out.set(slot, {
        kind: 'late',
        why: 'by a run killed after its folder was in place (completed by a later one)',
      });
    else if (/no kernel document is due/.test(slot.tick) && slot.slot !== 0)
      out.set(slot, { kind: 'nothing-due' });
    else if (slot.slot === 0)
      out.set(slot, {
        kind: 'missed',
        why: own
          .map((r) => (r.signal ? `killed while ${r.killed}` : (r.error ?? r.said.split('\n')[0])))
          .join(', '),
      });
    else out.set(slot, { kind: 'missed', why: slot.tick });
  }
  return out;
}
