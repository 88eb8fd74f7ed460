import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BURST_DEFAULTS,
  burstStrategy,
  compareAtEqualDownloads,
  DAY,
  evaluate,
  PAPER_BOUNDS,
  recall,
  SCALED_FAMILIES,
  STRATEGIES,
  strategyByName,
  syntheticHistories,
  WEEK,
  YEAR,
} from '../../pipeline/schedule/index.ts';
import { drive } from './drive.ts';

const B = PAPER_BOUNDS;
const last = (xs: number[]) => xs[xs.length - 1];
const bursts = '1100000011000000110000001';

test('burst: deterministic, and its state survives a JSON round trip (tick persists it)', () => {
  const burst = burstStrategy();
  assert.deepEqual(drive(burst, bursts, WEEK, B), drive(burst, bursts, WEEK, B));
  const persisted = {
    ...burst,
    next: (input: Parameters<typeof burst.next>[0]) =>
      burst.next({ ...input, state: JSON.parse(JSON.stringify(input.state)) }),
  };
  assert.deepEqual(drive(persisted, bursts, WEEK, B), drive(burst, bursts, WEEK, B));
  assert.equal(strategyByName('burst'), STRATEGIES.burst);
});

test('burst: every interval stays within the bounds', () => {
  const bounds = { min: 2 * DAY, max: 40 * DAY };
  for (const script of ['1'.repeat(40), '0'.repeat(40), bursts, '10'.repeat(20)]) {
    for (const interval of drive(burstStrategy(), script, WEEK, bounds)) {
      assert.ok(interval >= bounds.min && interval <= bounds.max, `${script}: ${interval}`);
    }
  }
  assert.equal(last(drive(burstStrategy(), '1'.repeat(40), WEEK, bounds)), bounds.min);
  assert.equal(last(drive(burstStrategy(), '0'.repeat(40), WEEK, bounds)), bounds.max);
});

test('burst: right after a change in a bursty document it comes back sooner than cho-irregular', () => {
  const cho = STRATEGIES['cho-irregular'];
  assert.ok(last(drive(burstStrategy(), bursts, WEEK, B)) < last(drive(cho, bursts, WEEK, B)));
  // without the hot rate (its prior weight overwhelming) the answer is the cold one
  const flat = burstStrategy({ hotWeight: 1e9 });
  assert.ok(last(drive(burstStrategy(), bursts, WEEK, B)) < last(drive(flat, bursts, WEEK, B)));
});

test('burst: a quiet document starts near the prior interval and leaves it as the evidence grows', () => {
  const prior = BURST_DEFAULTS.priorInterval;
  const quiet = (o = {}) => drive(burstStrategy(o), '00000000', WEEK, B);
  // one unchanged week says little: the answer is the prior's order of magnitude (cho-irregular: 24 days)
  const first = quiet()[0];
  assert.ok(first > prior / 2 && first < 2 * prior, `${first / DAY} days`);
  // eight quiet observations (most of them long) outweigh two pseudo-observations
  assert.equal(last(quiet()), B.max);
  // a much stronger prior holds the interval near its own
  assert.ok(last(quiet({ priorWeight: 50 })) < 1.5 * prior);
});

test('burst beats window at equal downloads on self-exciting documents (margin large by construction)', () => {
  const docs = syntheticHistories({ perBucket: 3, kinds: ['hawkes'], seed: 3, span: 2 * YEAR, start: 0 });
  const settings = { span: 2 * YEAR, bounds: B, initial: WEEK };
  const evaluation = evaluate(docs, [strategyByName('window')], settings);
  const [row] = compareAtEqualDownloads(docs, evaluation, ['window'], SCALED_FAMILIES.burst).rows;
  const gain = recall(row.matched.result.overall) - recall(row.published.overall);
  assert.ok(Math.abs(row.matched.result.overall.downloads / row.published.overall.downloads - 1) < 0.02);
  assert.ok(gain > 0.03, `gain ${gain}`);
});
