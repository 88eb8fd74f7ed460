import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BASELINE_DEFAULTS, baselineEstimate } from '../../pipeline/schedule/index.ts';

const A = { pld: 'a.org', docs: 10, ...BASELINE_DEFAULTS }; // threads 2, time 10 x 2000 / 2 + 1000 x 1 = 11000
const B = { pld: 'b.org', docs: 4, downloadMs: 500, delayMs: 1000 }; // threads 0.5, time 4 x 500 / 0.5 - 500 = 3500

test('one domain with the paper defaults: threads c/d = 2, time docs x c / threads + d x (threads - 1)', () => {
  assert.deepEqual(baselineEstimate([A], 64), { makespanMs: 11000, threads: 2, bins: 1, threadCap: 2 });
});

test('a domain that does not fit the largest bin opens a new one; threads add up per bin (rounded up)', () => {
  assert.deepEqual(baselineEstimate([B, A], 64), { makespanMs: 11000, threads: 3, bins: 2, threadCap: 2 });
});

test('too many threads: the per-domain cap falls to 1, so A takes 10 x 2000 = 20000 and B still needs its own bin', () => {
  assert.deepEqual(baselineEstimate([A, B], 2), { makespanMs: 20000, threads: 2, bins: 2, threadCap: 1 });
});

test('still too many at cap 1: the bin grows by 10% steps until both domains share one (20000 x 1.21)', () => {
  const e = baselineEstimate([A, B], 1);
  assert.equal(e.bins, 1);
  assert.equal(e.threads, 1);
  assert.ok(Math.abs(e.makespanMs - 24200) < 1e-6);
});

test('small domains pack into the bin of the largest one', () => {
  const small = (pld: string) => ({ pld, docs: 1, downloadMs: 1000, delayMs: 1000 }); // 1 thread, 1000 ms
  const e = baselineEstimate([A, small('c.org'), small('d.org')], 64);
  // A alone fills a bin (11000); c and d share a second bin (2000 <= 11000)
  assert.deepEqual(e, { makespanMs: 11000, threads: 3, bins: 2, threadCap: 2 });
});
