import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TABLE_NAMES } from '../../pipeline/snapshot/index.ts';
import { CONSOLE_TABLES, consoleExamples } from '../../pipeline/stats/console-examples.ts';
import { exampleQueries } from '../../pipeline/stats/doc-queries.ts';

test('the console defines a view for every table of a snapshot folder, and no other', () => {
  assert.deepEqual([...CONSOLE_TABLES].sort(), [...TABLE_NAMES].sort());
});

test('every example query runs in the console over the views: no file glob is left', async () => {
  const examples = consoleExamples(await exampleQueries());
  assert.ok(examples.length > 0);
  for (const q of examples) {
    assert.doesNotMatch(q.sql, /read_parquet|snapshots\//, q.file);
    assert.match(q.sql, new RegExp(`\\b(${CONSOLE_TABLES.join('|')})\\b`), q.file);
  }
});
