import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScheduleEntry } from '../../pipeline/core/index.ts';
import {
  dueUrls,
  HISTORY_LIMIT,
  liveStrategy,
  nextSchedule,
  readLiveState,
  SLOT_MS,
  type Strategy,
  strategyByName,
  WEEK,
  weekPosition,
  weekStartOf,
  writeLiveState,
} from '../../pipeline/schedule/index.ts';

const H = 3_600_000;
const W0 = Date.UTC(2026, 10, 16);
/** The DyLDO levels, which these tests hand-compute. */
const dyldo = strategyByName('dyldo');

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
    strategy: dyldo,
    previous: [],
    observations: [{ url: 'http://a.org/', changed: null }],
    observedAt: W0,
    kernel: ['http://a.org/'],
  });
  const levels: number[] = [];
  for (const changed of changes) {
    const at = schedule[0].nextDue;
    schedule = nextSchedule({
      strategy: dyldo,
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
    strategy: dyldo,
    previous,
    observations: [{ url: 'http://a.org/', changed: true }],
    observedAt: at,
  });
  assert.equal(up.level, 3);
  assert.equal(up.nextDue, at + 21 * H);
  const [kept] = nextSchedule({
    strategy: dyldo,
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
    strategy: dyldo,
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
    strategy: dyldo,
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

/** One document observed `n` times when due under `strategy`, changed when `changed(i, since, at)`. */
function observeRepeatedly(
  strategy: Strategy,
  n: number,
  changed: (i: number, since: number, at: number) => boolean,
  start: ScheduleEntry[] = [],
): ScheduleEntry[] {
  let schedule =
    start.length > 0
      ? start
      : nextSchedule({
          strategy,
          previous: [],
          observations: [{ url: 'http://a.org/', changed: null }],
          observedAt: W0,
          kernel: ['http://a.org/'],
        });
  for (let i = 0; i < n; i++) {
    const at = schedule[0].nextDue;
    schedule = nextSchedule({
      strategy,
      previous: schedule,
      observations: [{ url: 'http://a.org/', changed: changed(i, at - schedule[0].intervalMs, at) }],
      observedAt: at,
    });
  }
  return schedule;
}

test('the default strategy shortens the interval of a document that keeps changing, down to one slot', () => {
  const strategy = liveStrategy();
  assert.equal(strategy.name, 'cho-irregular');
  const changing = observeRepeatedly(strategy, 12, () => true)[0];
  const quiet = observeRepeatedly(strategy, 12, () => false)[0];
  assert.equal(changing.intervalMs, SLOT_MS);
  assert.equal(changing.level, 4);
  assert.equal(quiet.intervalMs, WEEK);
  assert.equal(quiet.level, 0);
  // a change every 3 days exactly: visits settle between the extremes
  const day = 24 * 3_600_000;
  const every = observeRepeatedly(
    strategy,
    40,
    (_, since, at) => Math.floor(at / (3 * day)) > Math.floor(since / (3 * day)),
  );
  assert.equal(every[0].intervalMs % SLOT_MS, 0, 'a whole number of slots');
  assert.ok(
    every[0].intervalMs > SLOT_MS && every[0].intervalMs < WEEK,
    `${every[0].intervalMs / SLOT_MS} slots`,
  );
});

test('the history is bounded: the newest HISTORY_LIMIT observations, the one before them as the baseline', () => {
  const schedule = observeRepeatedly(liveStrategy(), HISTORY_LIMIT + 40, (i) => i % 2 === 0);
  const { history } = readLiveState(schedule[0]);
  assert.ok(history);
  assert.equal(history.minutes.length, HISTORY_LIMIT);
  assert.equal(history.changed.length, HISTORY_LIMIT);
  // the last observation is the one made when the entry was written
  const last = history.start + history.minutes.reduce((a, m) => a + m * 60_000, 0);
  assert.equal(last, schedule[0].nextDue - schedule[0].intervalMs);
  assert.ok(history.start > W0, 'the oldest observations were dropped');
  assert.ok(schedule[0].state.length < 3000, `${schedule[0].state.length} characters of state`);
});

test('switching strategies keeps the history; an entry without one (DyLDO before histories) starts one', () => {
  const legacy: ScheduleEntry = {
    url: 'http://a.org/',
    level: 1,
    intervalMs: WEEK / 2,
    nextDue: W0 + WEEK,
    strategy: 'dyldo',
    state: JSON.stringify({ level: 1, changedRun: 0, unchangedRun: 0 }),
  };
  const dyldo2 = observeRepeatedly(dyldo, 3, () => true, [legacy])[0];
  const kept = readLiveState(dyldo2);
  assert.equal(kept.history?.start, W0 + WEEK / 2, 'the baseline: one interval before it was due');
  assert.equal(kept.history?.changed, '111');
  assert.equal(dyldo2.level, 2, 'DyLDO went on from level 1');
  const switched = observeRepeatedly(liveStrategy('cho-irregular'), 1, () => true, [dyldo2])[0];
  assert.equal(switched.strategy, 'cho-irregular');
  assert.equal(readLiveState(switched).history?.changed, '1111');
  assert.equal((readLiveState(switched).state as { rate: number }).rate > 0, true);
});

test('gold, the oracle, cannot schedule crawls; unknown names are refused too', () => {
  assert.throws(() => liveStrategy('gold'), /oracle/);
  assert.throws(() => liveStrategy('nope'), /unknown strategy/);
  assert.equal(liveStrategy('dyldo-3').name, 'dyldo-3');
});

test('the state keeps runs of equal gaps short and reads back exactly', () => {
  const weekly = {
    start: W0,
    minutes: Array(HISTORY_LIMIT).fill(10_080),
    changed: '0'.repeat(HISTORY_LIMIT),
  };
  const text = writeLiveState({ state: { rate: 1e-9 }, history: weekly });
  assert.ok(text.length < 200, `${text.length} characters for ${HISTORY_LIMIT} weekly observations`);
  const entry = (state: string): ScheduleEntry => ({
    url: 'http://a.example/',
    level: 0,
    intervalMs: WEEK,
    nextDue: W0,
    strategy: 'cho-irregular',
    state,
  });
  assert.deepEqual(readLiveState(entry(text)), { state: { rate: 1e-9 }, history: weekly });
  const irregular = { start: W0, minutes: [630, 630, 1260, 630, 10_080, 10_080, 1], changed: '0110100' };
  assert.deepEqual(
    readLiveState(entry(writeLiveState({ state: null, history: irregular }))).history,
    irregular,
  );
  // a gap list that does not match its verdicts is not a history (the state is kept as it is)
  const broken = JSON.stringify({ state: 1, history: { start: W0, gaps: '630*2,630*4', changed: 'f' } });
  assert.equal(readLiveState(entry(broken)).history, null);
});
