import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScheduleEntry } from '../../pipeline/core/index.ts';
import { dueUrls, nextSchedule, weekPosition, weekStartOf } from '../../pipeline/schedule/index.ts';

const H = 3_600_000;
const W0 = Date.UTC(2026, 10, 16);

test('the week is 16 slots of 10.5 h; after it the weekly snapshot is due', () => {
  assert.deepEqual(weekPosition(W0, W0), { weekStart: W0, slot: 0, slotStart: W0 });
  assert.equal(weekPosition(W0, W0 + 10.5 * H - 1)?.slot, 0);
  assert.deepEqual(weekPosition(W0, W0 + 11 * H), { weekStart: W0, slot: 1, slotStart: W0 + 10.5 * H });
  assert.equal(weekPosition(W0, W0 + 15 * 10.5 * H)?.slot, 15);
  assert.equal(weekPosition(W0, W0 + 168 * H), null);
  assert.equal(weekPosition(W0, W0 - 1), null);
});

test("the week boundary is 00:00 UTC of the weekly snapshot's name; every slot starts exactly on it", () => {
  assert.equal(weekStartOf('2026-11-16'), W0);
  assert.throws(() => weekStartOf('2026-11-16T1030Z'), /not a weekly snapshot name/);
  for (let slot = 1; slot < 16; slot++) {
    const start = W0 + slot * 10.5 * H;
    assert.equal(weekPosition(W0, start - 1)?.slot, slot - 1, `1 ms before slot ${slot}`);
    assert.deepEqual(weekPosition(W0, start), { weekStart: W0, slot, slotStart: start });
    assert.equal(weekPosition(W0, start + 1)?.slot, slot, `1 ms into slot ${slot}`);
  }
});

/** Replays a scripted history of one document, one observation per due slot; returns its levels. */
function levelsAfter(changes: boolean[]): number[] {
  let schedule: ScheduleEntry[] = nextSchedule({
    previous: [],
    observations: [{ url: 'http://a.org/', changed: null }],
    observedAt: W0,
    kernel: ['http://a.org/'],
  });
  const levels: number[] = [];
  for (const changed of changes) {
    const at = schedule[0].nextDue;
    schedule = nextSchedule({
      previous: schedule,
      observations: [{ url: 'http://a.org/', changed }],
      observedAt: at,
    });
    levels.push(schedule[0].level);
  }
  return levels;
}

test('up a level after two consecutive changes at it, down after two unchanged (hand-computed)', () => {
  assert.deepEqual(
    levelsAfter([true, true, true, true, false, false, false, true]),
    [0, 1, 1, 2, 2, 1, 1, 1],
  );
  assert.deepEqual(levelsAfter(Array(10).fill(true)), [0, 1, 1, 2, 2, 3, 3, 4, 4, 4]);
  assert.deepEqual(levelsAfter([true, false, true, false]), [0, 0, 0, 0]);
});

test('a level-L document is due again 16 / 2^L slots later; a failed fetch keeps the level', () => {
  const at = W0 + 5 * 10.5 * H;
  const previous: ScheduleEntry[] = [
    {
      url: 'http://a.org/',
      level: 2,
      intervalMs: 42 * H,
      nextDue: at,
      strategy: 'dyldo',
      state: JSON.stringify({ level: 2, changedRun: 1, unchangedRun: 0 }),
    },
  ];
  const [up] = nextSchedule({
    previous,
    observations: [{ url: 'http://a.org/', changed: true }],
    observedAt: at,
  });
  assert.equal(up.level, 3);
  assert.equal(up.nextDue, at + 21 * H);
  const [kept] = nextSchedule({
    previous,
    observations: [{ url: 'http://a.org/', changed: null }],
    observedAt: at,
  });
  assert.equal(kept.level, 2);
  assert.equal(kept.nextDue, at + 42 * H);
});

test('due documents are those whose next visit is at or before the slot start, missed slots included', () => {
  const e = (url: string, nextDue: number): ScheduleEntry => ({
    url,
    level: 0,
    intervalMs: 0,
    nextDue,
    strategy: 'dyldo',
    state: '{}',
  });
  const slot3 = W0 + 3 * 10.5 * H;
  const schedule = [
    e('http://missed/', W0 + 10.5 * H),
    e('http://now/', slot3),
    e('http://later/', slot3 + 10.5 * H),
  ];
  assert.deepEqual(dueUrls(schedule, slot3), ['http://missed/', 'http://now/']);
});

test('a weekly snapshot adds new kernel documents at level 0 and drops those that left', () => {
  const first = nextSchedule({
    previous: [],
    observations: [],
    observedAt: W0,
    kernel: ['http://b/', 'http://a/'],
  });
  assert.deepEqual(
    first.map((s) => [s.url, s.level, s.nextDue]),
    [
      ['http://a/', 0, W0 + 168 * H],
      ['http://b/', 0, W0 + 168 * H],
    ],
  );
  const next = nextSchedule({
    previous: first,
    observations: [],
    observedAt: W0 + 168 * H,
    kernel: ['http://a/'],
  });
  assert.deepEqual(
    next.map((s) => s.url),
    ['http://a/'],
  );
});
