import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { type ChangeHistory, loadHistories } from '../../pipeline/schedule/index.ts';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
const ms = (iso: string) => Date.parse(iso);
const plain = (d: ChangeHistory) => ({
  id: d.id,
  start: d.start,
  end: d.end,
  changes: Array.from(d.changes),
});
const invalid = (pattern: RegExp) => (e: Error & { code?: string }) =>
  e.code === 'invalid_input' && pattern.test(e.message);

test('JSON Lines: histories, empty histories, start/end defaulting to the first/last change', async () => {
  const docs = (await loadHistories(join(fixtures, 'histories.jsonl'))).map(plain);
  assert.deepEqual(docs, [
    {
      id: 'a',
      start: ms('2020-01-01T00:00:00Z'),
      end: ms('2020-01-22T00:00:00Z'),
      changes: [ms('2020-01-02T00:00:00Z'), ms('2020-01-03T00:00:00Z'), ms('2020-01-11T00:00:00Z')],
    },
    { id: 'empty', start: ms('2020-01-01T00:00:00Z'), end: ms('2020-01-29T00:00:00Z'), changes: [] },
    // unsorted input; the first change is the start, not a change
    {
      id: '7',
      start: ms('2020-01-01T00:00:00Z'),
      end: ms('2020-01-05T00:00:00Z'),
      changes: [ms('2020-01-03T00:00:00Z'), ms('2020-01-05T00:00:00Z')],
    },
  ]);
});

test('JSON Lines: malformed files name the file, the line and what was expected', async () => {
  await assert.rejects(
    loadHistories(join(fixtures, 'bad-timestamp.jsonl')),
    invalid(/bad-timestamp\.jsonl:2: expected changes\[0\] as an ISO 8601 timestamp/),
  );
  await assert.rejects(
    loadHistories(join(fixtures, 'malformed.jsonl')),
    invalid(/malformed\.jsonl:2: expected one JSON object per line/),
  );
});

test('MediaWiki (formatversion 1): minor revisions dropped, missing pages skipped, ends at curtimestamp', async () => {
  const docs = (await loadHistories(join(fixtures, 'mediawiki', 'v1.json'))).map(plain);
  assert.deepEqual(docs, [
    {
      id: 'Albert Einstein',
      start: ms('2020-01-01T00:00:00Z'),
      end: ms('2023-01-01T00:00:00Z'),
      changes: [ms('2020-01-10T00:00:00Z'), ms('2020-02-01T12:00:00Z')],
    },
  ]);
  const withMinor = await loadHistories(join(fixtures, 'mediawiki', 'v1.json'), { keepMinor: true });
  assert.equal(withMinor[0].changes.length, 3);
});

test('MediaWiki (formatversion 2): boolean minor flags; without curtimestamp the last revision ends it', async () => {
  const docs = (await loadHistories(join(fixtures, 'mediawiki', 'v2.json'))).map(plain);
  assert.deepEqual(docs, [
    {
      id: 'Douglas Adams',
      start: ms('2021-03-01T00:00:00Z'),
      end: ms('2021-03-06T00:00:00Z'),
      changes: [ms('2021-03-04T00:00:00Z')],
    },
  ]);
});

test('MediaWiki folder: continuation responses of one page are merged', async () => {
  const docs = (await loadHistories(join(fixtures, 'mediawiki-folder'))).map(plain);
  assert.deepEqual(docs, [
    {
      id: 'Split',
      start: ms('2020-01-01T00:00:00Z'),
      end: ms('2020-06-01T00:00:00Z'),
      changes: [ms('2020-02-01T00:00:00Z'), ms('2020-03-01T00:00:00Z')],
    },
  ]);
});

test('MediaWiki: a file that is not an API response is a clear error', async () => {
  await assert.rejects(
    loadHistories(join(fixtures, 'not-mediawiki.json')),
    invalid(/not-mediawiki\.json: expected a MediaWiki API response with query\.pages/),
  );
});

test('snapshots: a change is a graph_hash that differs from the url’s previous observation', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'evaluate-snapshots-'));
  try {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    for (const [snapshot, rows] of [
      [
        '2026-11-16',
        "('http://a/', TIMESTAMP '2026-11-16 00:00:00', 'h1'), ('http://b/', TIMESTAMP '2026-11-16 01:00:00', 'x')",
      ],
      [
        '2026-11-17T1030Z',
        "('http://a/', TIMESTAMP '2026-11-17 10:30:00', 'h1'), ('http://b/', TIMESTAMP '2026-11-17 10:30:00', NULL)",
      ],
      [
        '2026-11-23',
        "('http://a/', TIMESTAMP '2026-11-23 00:00:00', 'h2'), ('http://b/', TIMESTAMP '2026-11-23 02:00:00', 'y')",
      ],
    ]) {
      await connection.run(
        `CREATE OR REPLACE TABLE t AS SELECT '${snapshot}' AS snapshot, * FROM (VALUES ${rows}) v(url, fetched_at, graph_hash)`,
      );
      await connection.run(
        `COPY t TO '${join(dir, `${snapshot}.parquet`).replaceAll("'", "''")}' (FORMAT parquet)`,
      );
    }
    connection.closeSync();
    instance.closeSync();
    const docs = (await loadHistories(join(dir, '*.parquet'))).map(plain);
    assert.deepEqual(docs, [
      {
        id: 'http://a/',
        start: ms('2026-11-16T00:00:00Z'),
        end: ms('2026-11-23T00:00:00Z'),
        changes: [ms('2026-11-23T00:00:00Z')],
      },
      // the failed fetch (no graph_hash) is not an observation; x -> y is a change
      {
        id: 'http://b/',
        start: ms('2026-11-16T01:00:00Z'),
        end: ms('2026-11-23T02:00:00Z'),
        changes: [ms('2026-11-23T02:00:00Z')],
      },
    ]);
    await assert.rejects(
      loadHistories(join(fixtures, 'histories.jsonl'), { format: 'snapshots' }),
      invalid(/expected documents\.parquet/),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
