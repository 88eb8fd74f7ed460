import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY, documentBuckets, syntheticHistories, YEAR } from '../../pipeline/schedule/index.ts';

const options = {
  perBucket: 20,
  kinds: ['poisson', 'bursty', 'weekly', 'drifting'] as const,
  seed: 7,
  span: 3 * YEAR,
  start: 0,
};

test('synthetic histories are reproducible by seed and differ across seeds', () => {
  const a = syntheticHistories(options);
  const b = syntheticHistories(options);
  const c = syntheticHistories({ ...options, seed: 8 });
  assert.equal(a.length, 4 * 7 * 20);
  assert.deepEqual(Array.from(a[5].changes), Array.from(b[5].changes));
  assert.notDeepEqual(Array.from(a[5].changes), Array.from(c[5].changes));
});

test('poisson documents land in the bucket they were drawn for (most of them)', () => {
  const docs = syntheticHistories({ ...options, kinds: ['poisson'] });
  const buckets = documentBuckets(docs, options.span);
  // generator bucket b is BUCKETS index b + 1 (BUCKETS starts with "under 2 days")
  let hits = 0;
  docs.forEach((_, i) => {
    if (buckets[i] === Math.floor(i / 20) + 1) hits++;
  });
  assert.ok(hits / docs.length > 0.7, `${hits} of ${docs.length}`);
});

test('weekly documents change only on two days of the week; bursty ones in clusters', () => {
  const weekly = syntheticHistories({ ...options, kinds: ['weekly'] });
  const days = new Set(
    weekly.flatMap((d) => Array.from(d.changes, (t) => Math.floor((t % (7 * DAY)) / DAY))),
  );
  assert.deepEqual([...days].sort(), [0, 3]);
  const bursty = syntheticHistories({ ...options, kinds: ['bursty'] }).slice(0, 20);
  const gaps = bursty.flatMap((d) =>
    Array.from(d.changes)
      .slice(1)
      .map((t, i) => t - d.changes[i]),
  );
  const shortGaps = gaps.filter((g) => g < DAY).length;
  // Poisson at 2-7 days would put few gaps under a day; bursts put most of them there
  assert.ok(shortGaps / gaps.length > 0.5, `${shortGaps} of ${gaps.length}`);
});

test('hawkes documents cluster (gaps under 2 days far more often than Poisson); pareto gaps are heavy-tailed', () => {
  const gapsOf = (kind: 'poisson' | 'hawkes' | 'pareto') =>
    syntheticHistories({ ...options, kinds: [kind] }).flatMap((d) =>
      Array.from(d.changes)
        .slice(1)
        .map(
          (t, i) => (t - d.changes[i]) / (d.changes.length > 1 ? (d.end - d.start) / d.changes.length : 1),
        ),
    );
  const short = (gaps: number[]) => gaps.filter((g) => g < 0.1).length / gaps.length;
  assert.ok(short(gapsOf('hawkes')) > 2 * short(gapsOf('poisson')));
  // coefficient of variation of gaps relative to each document's mean: 1 for Poisson, more for heavy tails
  const cv = (gaps: number[]) => {
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const variance = gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length;
    return Math.sqrt(variance) / mean;
  };
  assert.ok(
    cv(gapsOf('pareto')) > 1.3 * cv(gapsOf('poisson')),
    `${cv(gapsOf('pareto'))} vs ${cv(gapsOf('poisson'))}`,
  );
  const again = syntheticHistories({ ...options, kinds: ['hawkes', 'pareto'] });
  assert.deepEqual(
    again.map((d) => d.changes.length),
    syntheticHistories({ ...options, kinds: ['hawkes', 'pareto'] }).map((d) => d.changes.length),
  );
});
