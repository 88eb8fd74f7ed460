import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countAtMost } from '../../pipeline/core/index.ts';

test('countAtMost: the index of the first value greater than t, equal values counted', () => {
  const values = [1, 3, 3, 3, 7];
  const at = (i: number) => values[i];
  assert.equal(countAtMost(values.length, at, 0), 0);
  assert.equal(countAtMost(values.length, at, 1), 1);
  assert.equal(countAtMost(values.length, at, 3), 4);
  assert.equal(countAtMost(values.length, at, 6.5), 4);
  assert.equal(countAtMost(values.length, at, 7), 5);
  assert.equal(countAtMost(0, at, 7), 0);
});
