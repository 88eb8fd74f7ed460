import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectGarbage } from '../../pipeline/core/index.ts';

const MIB = 1024 * 1024;

test('collectGarbage gives the pages of a grown heap back, not only its objects', () => {
  // grow the heap the way a crawl does: many short-lived objects, some kept for a while
  let kept: Array<{ url: string; links: number[] }> = [];
  for (let i = 0; i < 3_000_000; i++) {
    kept.push({ url: `http://example.org/${i}`, links: [i, i + 1] });
    if (kept.length > 1_500_000) kept = kept.slice(750_000);
  }
  const grown = process.memoryUsage().heapTotal;
  assert.ok(grown > 200 * MIB, `the heap grew to ${grown / MIB} MiB`);
  kept = [];
  collectGarbage();
  // a plain full collection leaves the heap at ~130 MiB committed here; the pages must be released
  const after = process.memoryUsage().heapTotal;
  assert.ok(
    after < 48 * MIB,
    `heap after collection: ${Math.round(after / MIB)} MiB of ${Math.round(grown / MIB)}`,
  );
  assert.equal(kept.length, 0);
});
