import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DAY,
  historyOf,
  irregularRate,
  PAPER_BOUNDS,
  rateStrategy,
  regularRate,
} from '../../pipeline/schedule/index.ts';
import { drive } from './drive.ts';

const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.abs(b), `${what}: ${a} vs ${b}`);

test("Cho's bias-reduced estimator for regular accesses", () => {
  // n = 4, X = 2, I = 1 day: -ln(2.5 / 4.5) per day
  close(regularRate(4, 2, DAY), Math.log(4.5 / 2.5) / DAY, 'half changed');
  // every access saw a change: still finite, ln(2n + 1)
  close(regularRate(10, 10, DAY), Math.log(21) / DAY, 'all changed');
  assert.equal(regularRate(5, 0, DAY), 0);
});

test('the irregular-gap MLE reduces to ln(n / (n - X)) / t for equal gaps', () => {
  // X t / (e^(λt) - 1) = (n - X) t  =>  λ = ln(n / (n - X)) / t; n = 4, X = 2
  close(irregularRate([DAY, DAY], 2 * DAY, 0), Math.log(2) / DAY, 'n=4 X=2');
  close(irregularRate([DAY, DAY, DAY], DAY, 1e-12), Math.log(4) / DAY, 'n=4 X=3, poor guess');
  assert.equal(irregularRate([], 5 * DAY, 0), 0);
});

test('the irregular-gap MLE solves its likelihood equation for mixed gaps', () => {
  const changed = [DAY, 3 * DAY, 10 * DAY];
  const unchanged = 4 * DAY;
  const lambda = irregularRate(changed, unchanged, 0);
  const lhs = changed.reduce((s, t) => s + t / Math.expm1(lambda * t), 0);
  assert.ok(Math.abs(lhs - unchanged) < 1e-4 * unchanged);
  // a prior changed half-observation makes a history without changes still give a positive rate
  assert.ok(irregularRate([], 10 * DAY, 0, { weight: 0.5, gap: 10 * DAY }) > 0);
});

test('cho-regular visits every scale / λ', () => {
  const strategy = rateStrategy({
    estimator: 'regular',
    scale: 1,
    window: 24,
    minChanges: 8,
    maxLookBack: 256,
  });
  // 4 observations 1 day apart, 2 changed: λ = ln(4.5 / 2.5) per day
  const history = historyOf(
    0,
    [0, 1, 0, 1].map((c, i) => ({ at: (i + 1) * DAY, changed: c === 1 })),
  );
  const bounds = { min: 1, max: 1e12 };
  const next = strategy.next({ history, interval: DAY, state: { rate: 0 }, bounds });
  close(next.interval, DAY / Math.log(4.5 / 2.5), 'interval');
  const halved = rateStrategy({
    estimator: 'regular',
    scale: 0.5,
    window: 24,
    minChanges: 8,
    maxLookBack: 256,
  });
  close(
    halved.next({ history, interval: DAY, state: { rate: 0 }, bounds }).interval,
    DAY / 2 / Math.log(4.5 / 2.5),
    'scale 0.5',
  );
});

test('cho-irregular lengthens the interval of a document that stops changing and shortens it for one that always changes', () => {
  const strategy = rateStrategy({
    estimator: 'irregular',
    scale: 1,
    window: 24,
    minChanges: 8,
    maxLookBack: 256,
  });
  const quiet = drive(strategy, '0000000000', DAY * 7, PAPER_BOUNDS);
  assert.ok(quiet[9] > 30 * DAY);
  const busy = drive(strategy, '1111111111', DAY * 7, PAPER_BOUNDS);
  assert.ok(busy[9] < 7 * DAY);
});
