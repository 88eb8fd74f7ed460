import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DAY,
  dyldoStrategy,
  dynLookBack,
  dynStrategy,
  fixStrategy,
  goldStrategy,
  HOUR,
  intervalForLevel,
  levelForInterval,
  MONTH,
  PAPER_BOUNDS,
  SLOT_MS,
  STRATEGIES,
  slotsForLevel,
  stateOneStrategy,
  stateTwoStrategy,
  strategyByName,
  WEEK,
  weekStrategy,
  windowHalfStrategy,
  windowTenStrategy,
} from '../../pipeline/schedule/index.ts';
import { drive } from './drive.ts';

const B = PAPER_BOUNDS;
const last = (xs: number[]) => xs[xs.length - 1];

test('fix: waits for 2 observations at the interval, then halves / x1.5 / keeps (under a month)', () => {
  assert.deepEqual(drive(fixStrategy, '11', WEEK, B), [WEEK, 3.5 * DAY]);
  assert.deepEqual(drive(fixStrategy, '00', WEEK, B), [WEEK, 10.5 * DAY]);
  assert.deepEqual(drive(fixStrategy, '10', WEEK, B), [WEEK, WEEK]);
  // after a change of interval it needs 2 new observations: '1' at 3.5 d is not enough
  assert.deepEqual(drive(fixStrategy, '111', WEEK, B), [WEEK, 3.5 * DAY, 3.5 * DAY]);
  // sliding window at an unchanged interval: '10' keeps, then '01' keeps, then '11' halves
  assert.deepEqual(drive(fixStrategy, '1011', WEEK, B), [WEEK, WEEK, WEEK, 3.5 * DAY]);
});

test('fix: over a month it shortens by 1.5 and lengthens by 2', () => {
  assert.equal(last(drive(fixStrategy, '11', 45 * DAY, B)), 30 * DAY);
  assert.equal(last(drive(fixStrategy, '00', 45 * DAY, B)), 90 * DAY);
});

test('fix: intervals stay within [1 day, 6 months]', () => {
  assert.equal(last(drive(fixStrategy, '11', 1.5 * DAY, B)), DAY);
  assert.equal(last(drive(fixStrategy, '00', 150 * DAY, B)), 180 * DAY);
});

test('dyn: looks at 1, 2, 3 or 4 observations depending on the interval', () => {
  assert.deepEqual([70 * DAY, 45 * DAY, 10 * DAY, WEEK, 2 * DAY, DAY].map(dynLookBack), [1, 2, 3, 4, 4, 4]);
  assert.deepEqual(drive(dynStrategy, '1', 70 * DAY, B), [(70 * DAY) / 1.5]);
  assert.deepEqual(drive(dynStrategy, '0', 70 * DAY, B), [140 * DAY]);
  assert.deepEqual(drive(dynStrategy, '111', 10 * DAY, B), [10 * DAY, 10 * DAY, 5 * DAY]);
  assert.deepEqual(drive(dynStrategy, '000', 10 * DAY, B), [10 * DAY, 10 * DAY, 15 * DAY]);
  assert.deepEqual(drive(dynStrategy, '1110', WEEK, B), [WEEK, WEEK, WEEK, WEEK]);
});

test('window: the share of changes in the last 10 observations picks the factor', () => {
  const cases: [string, number][] = [
    ['1111111111', WEEK / 3], // r = 1
    ['0011111111', WEEK / 2], // r = 0.8
    ['0111111111', WEEK / 2], // r = 0.9 is not over 0.9
    ['0000111111', WEEK], // r = 0.6 is not over 0.6
    ['0000011111', WEEK], // r = 0.5
    ['0000000111', WEEK * 1.5], // r = 0.3
    ['0000000011', WEEK * 2], // r = 0.2
    ['0000000000', WEEK * 3], // r = 0
    ['110000000000', WEEK * 3], // only the last 10 count
  ];
  for (const [script, expected] of cases) {
    // each step moves the interval (unbounded here); only the last step's factor is checked
    const log = drive(windowTenStrategy, script, WEEK, { min: 1, max: 1e15 });
    const previous = log.length > 1 ? log[log.length - 2] : WEEK;
    assert.ok(Math.abs(last(log) / previous - expected / WEEK) < 1e-12, script);
  }
});

test('window-half: looks at the newest half of all observations, rounded up', () => {
  // 5 observations: the last 3 ('111') -> r = 1 -> /3
  const log = drive(windowHalfStrategy, '00111', WEEK, B);
  assert.equal(last(log) / log[3], 1 / 3);
  // 4 observations: the last 2 ('10') -> r = 0.5 -> keep
  const log2 = drive(windowHalfStrategy, '1110', WEEK, B);
  assert.equal(last(log2), log2[2]);
});

test('state-1: P(change | last state) from the chain of the current interval', () => {
  // obs 1: no transition yet; obs 2: 0->1 recorded, no data from state 1; obs 3: 1->0 recorded,
  // now in state 0 with P(1|0) = 1/1 -> /3
  assert.deepEqual(drive(stateOneStrategy, '010', WEEK, B), [WEEK, WEEK, WEEK / 3]);
  // '0000': transitions 0->0 three times, P(1|0) = 0 -> x3 once data exists
  assert.deepEqual(drive(stateOneStrategy, '00', WEEK, B), [WEEK, 3 * WEEK]);
});

test('state-2: P(change | last two states)', () => {
  // obs 3 records (0,1)->0; obs 4 records (1,0)->1 and asks P(1 | (0,1)) = 0/1 -> x3
  assert.deepEqual(drive(stateTwoStrategy, '0101', WEEK, B), [WEEK, WEEK, WEEK, 3 * WEEK]);
});

test('state-1 keeps a separate chain for every interval value', () => {
  // '00' moves to 21 d; the next '1' is the first observation at 21 d: no data there -> keep
  assert.deepEqual(drive(stateOneStrategy, '001', WEEK, B), [WEEK, 3 * WEEK, 3 * WEEK]);
});

test('week and gold', () => {
  assert.deepEqual(drive(weekStrategy, '101', 3 * DAY, B), [WEEK, WEEK, WEEK]);
  assert.deepEqual(drive(goldStrategy, '10', WEEK, B, 10 * DAY), [10 * DAY, 10 * DAY]);
  assert.deepEqual(drive(goldStrategy, '0', WEEK, B, Number.POSITIVE_INFINITY), [180 * DAY]);
  assert.deepEqual(drive(goldStrategy, '0', WEEK, B, 2 * HOUR), [DAY]);
  assert.equal(goldStrategy.oracle, true);
});

test('dyldo: up after two changes in a row at a level, down after two unchanged', () => {
  const wide = { min: HOUR, max: 6 * MONTH };
  assert.deepEqual(drive(dyldoStrategy(), '1111', WEEK, wide), [WEEK, WEEK / 2, WEEK / 2, WEEK / 4]);
  assert.deepEqual(drive(dyldoStrategy(), '11110', WEEK, wide).slice(3), [WEEK / 4, WEEK / 4]);
  assert.deepEqual(drive(dyldoStrategy(), '111100', WEEK, wide).slice(4), [WEEK / 4, WEEK / 2]);
  // a changed observation breaks the unchanged run
  assert.equal(last(drive(dyldoStrategy(), '110100', WEEK, wide)), WEEK);
  // never beyond level 0 or 4
  assert.equal(last(drive(dyldoStrategy(), '0000', WEEK, wide)), WEEK);
  assert.equal(last(drive(dyldoStrategy(), '1111111111111', WEEK, wide)), SLOT_MS);
  // down-rule is a parameter
  assert.equal(last(drive(dyldoStrategy(3), '1100', WEEK, wide)), WEEK / 2);
  assert.equal(last(drive(dyldoStrategy(3), '11000', WEEK, wide)), WEEK);
  // under the paper's bounds level 3 (21 h) is clamped to 1 day
  assert.equal(last(drive(dyldoStrategy(), '111111', WEEK, B)), DAY);
});

test('dyldo helpers: levels, slots and intervals', () => {
  assert.deepEqual([0, 1, 2, 3, 4].map(slotsForLevel), [16, 8, 4, 2, 1]);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map(intervalForLevel),
    [168, 84, 42, 21, 10.5].map((h) => h * HOUR),
  );
  assert.deepEqual(
    [WEEK, 84 * HOUR, DAY, 10.5 * HOUR, HOUR, 30 * DAY].map(levelForInterval),
    [0, 1, 3, 4, 4, 0],
  );
});

test('registry: every strategy by name, dyldo-K, and a clear error for unknown names', () => {
  assert.deepEqual(Object.keys(STRATEGIES).sort(), [
    'burst',
    'cho-irregular',
    'cho-regular',
    'dyldo',
    'dyn',
    'fix',
    'gold',
    'state-1',
    'state-2',
    'week',
    'window',
    'window-half',
  ]);
  assert.equal(strategyByName('dyldo-3').name, 'dyldo-3');
  assert.throws(
    () => strategyByName('nope'),
    (e: Error & { code?: string }) => e.code === 'invalid_input' && /fix, dyn/.test(e.message),
  );
});
