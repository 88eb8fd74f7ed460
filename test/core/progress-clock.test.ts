import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockStartingAt, formatProgress, manualClock } from '../../pipeline/core/index.ts';

test('formatProgress shows done/total, rate and ETA', () => {
  const line = formatProgress('crawl', { done: 50, total: 150, extra: { plds: 7 } }, 10_000);
  assert.equal(line, 'crawl 50/150  5.0/s  ETA 20s  plds 7');
});

test('a clock started at --now reads that time and then advances', async () => {
  const start = Date.UTC(2026, 10, 16);
  const clock = clockStartingAt(start);
  assert.ok(Math.abs(clock.now() - start) < 50);
  await clock.sleep(20);
  assert.ok(clock.now() - start >= 15);
});

test('a manual clock advances only when told or slept', async () => {
  const clock = manualClock(100);
  await clock.sleep(50);
  clock.advance(10);
  assert.equal(clock.now(), 160);
});
