import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../pipeline/schedule/index.ts';
import { type ChangedGaps, estimateChangeRate } from '../../pipeline/stats/change-rates.ts';

const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;

/**
 * One document observed as the observatory observes a dynamic one: weekly gaps and 10.5-hour
 * re-visit gaps mixed, changes a Poisson process of `perWeek`; returns what the history totals
 * keep (changed comparisons per gap bucket, unchanged time) and the detected changes.
 */
function observe(perWeek: number, comparisons: number, random: () => number) {
  const rate = perWeek / WEEK;
  const buckets = new Map<number, { changes: number; seconds: number }>();
  let unchanged = 0;
  let changes = 0;
  for (let i = 0; i < comparisons; i++) {
    const gap = random() < 0.5 ? WEEK : 10.5 * HOUR;
    if (random() < 1 - Math.exp(-rate * gap)) {
      const bucket = Math.floor(20 * Math.log10(gap / HOUR));
      const b = buckets.get(bucket) ?? { changes: 0, seconds: 0 };
      buckets.set(bucket, { changes: b.changes + 1, seconds: b.seconds + gap });
      changes++;
    } else unchanged += gap;
  }
  const gaps: ChangedGaps[] = [...buckets.values()];
  return { gaps, unchanged, changes };
}

test('the estimate per week is near the true rate and its 95% interval covers it about 95% of the time', () => {
  const random = seededRandom(11);
  for (const perWeek of [0.3, 2, 8]) {
    const runs = 300;
    let covered = 0;
    let sum = 0;
    let seen = 0;
    for (let r = 0; r < runs; r++) {
      const o = observe(perWeek, 120, random);
      const e = estimateChangeRate(120, o.gaps, o.unchanged);
      if (e.low <= perWeek && perWeek <= e.high) covered++;
      sum += e.perWeek;
      seen += o.changes / ((o.unchanged + o.gaps.reduce((n, g) => n + g.seconds, 0)) / WEEK);
    }
    const mean = sum / runs;
    assert.ok(Math.abs(mean / perWeek - 1) < 0.1, `${perWeek} a week: mean estimate ${mean}`);
    assert.ok(
      covered / runs > 0.9 && covered / runs <= 0.99,
      `${perWeek} a week: covered ${covered} of ${runs}`,
    );
    // the changes seen per observed week (the example query's figure) fall short when changes are frequent
    if (perWeek >= 2) assert.ok(seen / runs < 0.75 * perWeek, `${perWeek} a week: seen ${seen / runs}`);
  }
});

test('a document that changed at every comparison gets a finite rate; one that never changed, an upper bound', () => {
  const always = estimateChangeRate(10, [{ changes: 10, seconds: 10 * WEEK }], 0);
  assert.ok(Number.isFinite(always.perWeek) && always.perWeek > 1, String(always.perWeek));
  assert.ok(always.low < always.perWeek && always.perWeek < always.high);
  const never = estimateChangeRate(52, [], 52 * WEEK);
  assert.deepEqual({ ...never, high: 0 }, { perWeek: 0, low: 0, high: 0, observedDays: 52 * 7 });
  // no change in 52 weeks has a chance of 5% exactly at 3/52 a week
  assert.ok(Math.abs(never.high - -Math.log(0.05) / 52) < 1e-12, String(never.high));
});
