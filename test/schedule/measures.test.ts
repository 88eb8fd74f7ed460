import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BUCKETS,
  bucketOf,
  changeHistory,
  DAY,
  evaluate,
  PAPER_BOUNDS,
  precision,
  recall,
  weekStrategy,
} from '../../pipeline/schedule/index.ts';

const at = (days: number) => days * DAY;

test('week on a hand-made history: several changes between downloads count once', () => {
  // changes on days 1, 2 and 10; downloads on days 7, 14, 21 (span 21 days)
  const doc = changeHistory('a', 0, at(21), [at(1), at(2), at(10)]);
  const ev = evaluate([doc], [weekStrategy], { span: at(21), bounds: PAPER_BOUNDS, initial: at(7) });
  const r = ev.results[0];
  assert.deepEqual(r.overall, { documents: 1, changes: 3, captured: 2, downloads: 3 });
  assert.equal(recall(r.overall), 2 / 3);
  assert.equal(precision(r.overall), 2 / 3);
  // mean change interval 21 / 3 = 7 days: the 2-7 days bucket (upper bound inclusive)
  assert.equal(BUCKETS[bucketOf(at(7))].name, '2-7 days');
  assert.equal(r.buckets[bucketOf(at(7))].documents, 1);
  // months: every download is in month 0; the 3 changes too
  assert.equal(r.monthly.downloads[0], 3);
  assert.equal(r.monthly.captured[0], 2);
  assert.equal(ev.monthlyChanges[0], 3);
});

test('the span cuts a history short; a truncated history is evaluated over what it has', () => {
  const doc = changeHistory('a', 0, at(100), [at(1), at(10), at(50)]);
  // span 14 days: downloads on days 7 and 14; only changes on days 1 and 10 are real in the span
  const ev = evaluate([doc], [weekStrategy], { span: at(14), bounds: PAPER_BOUNDS, initial: at(7) });
  assert.deepEqual(ev.results[0].overall, { documents: 1, changes: 2, captured: 2, downloads: 2 });
  // history of 10 days with a 3-year span: one download (day 7) that captures the day-1 change
  const short = changeHistory('b', 0, at(10), [at(1), at(9)]);
  const ev2 = evaluate([short], [weekStrategy], { span: at(3 * 365), bounds: PAPER_BOUNDS, initial: at(7) });
  assert.deepEqual(ev2.results[0].overall, { documents: 1, changes: 2, captured: 1, downloads: 1 });
});

test('a document that never changes: recall 1 by convention, precision 0, bucket over 6 months', () => {
  const doc = changeHistory('still', 0, at(28), []);
  const ev = evaluate([doc], [weekStrategy], { span: at(28), bounds: PAPER_BOUNDS, initial: at(7) });
  const r = ev.results[0];
  assert.deepEqual(r.overall, { documents: 1, changes: 0, captured: 0, downloads: 4 });
  assert.equal(recall(r.overall), 1);
  assert.equal(precision(r.overall), 0);
  assert.equal(r.buckets[BUCKETS.length - 1].documents, 1);
});

test('buckets follow the paper: 2-7 d, 7-14 d, 14 d-1 mo, 1-2 mo, 2-4 mo, 4-6 mo, over 6 mo', () => {
  const names = [at(1), at(3), at(10), at(20), at(45), at(90), at(150), at(200)].map(
    (d) => BUCKETS[bucketOf(d)].name,
  );
  assert.deepEqual(names, [
    'under 2 days',
    '2-7 days',
    '7-14 days',
    '14 days-1 month',
    '1-2 months',
    '2-4 months',
    '4-6 months',
    'over 6 months',
  ]);
});
