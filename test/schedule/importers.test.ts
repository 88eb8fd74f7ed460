import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteInput } from '../../pipeline/core/index.ts';
import { type ChangeHistory, detectFormat, loadHistories } from '../../pipeline/schedule/index.ts';

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

// Date.parse took every one of these (after a `^\d{4}-\d{2}-\d{2}` check in JSON Lines): the first
// as 2026-11-16, the second as March 2, the third in the machine's time zone
const BAD_TIMESTAMPS = [
  '2026-11-16 junk',
  '2026-02-30T00:00:00Z',
  '2026-11-16T10:30:00',
  '2026-11-16T24:00:00Z',
  '1989-12-31T23:59:59Z',
  '2100-01-01',
  '0202-01-01',
];

/** A file in a fresh folder holding `text`, for the histories a test writes itself. */
async function historiesFile(name: string, text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'histories-')), name);
  await writeFile(file, text);
  return file;
}

test('JSON Lines: a loose or impossible timestamp names the file, the line and the value, cut short', async () => {
  for (const [field, line] of [
    ['changes[1]', (t: string) => ({ id: 'x', changes: ['2020-01-01T00:00:00Z', t] })],
    ['"start"', (t: string) => ({ id: 'x', start: t, end: '2020-02-01', changes: [] })],
    ['"end"', (t: string) => ({ id: 'x', start: '2020-01-01', end: t, changes: [] })],
  ] as const) {
    for (const bad of [...BAD_TIMESTAMPS, `2026-11-16T00:00:00Z${'x'.repeat(10_000)}`]) {
      const file = await historiesFile(
        'h.jsonl',
        `{"id":"ok","changes":["2020-01-01"]}\n\n${JSON.stringify(line(bad))}\n`,
      );
      await assert.rejects(loadHistories(file), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'invalid_input');
        assert.ok(
          e.message.startsWith(`${file}:3: expected ${field} as an ISO 8601 timestamp from 1990 to 2099`),
          e.message,
        );
        assert.ok(e.message.endsWith(`got ${quoteInput(bad)}`), e.message);
        assert.ok(e.message.length < 600, 'a long value is cut short');
        return true;
      });
    }
  }
});

test('JSON Lines: exact instants from 1990 on, in every zone, are read', async () => {
  const file = await historiesFile(
    'old.jsonl',
    `${JSON.stringify({ id: 'old', start: '1990-01-01', end: '1999-12-31T23:00:00-02:00', changes: ['1995-06-01T12:00:00.5+02:00'] })}\n`,
  );
  assert.deepEqual((await loadHistories(file)).map(plain), [
    {
      id: 'old',
      start: ms('1990-01-01T00:00:00Z'),
      end: ms('2000-01-01T01:00:00Z'),
      changes: [ms('1995-06-01T10:00:00.500Z')],
    },
  ]);
});

/** A MediaWiki response whose page's second revision carries `timestamp` (and `revid`, when given). */
const mediaWikiWith = (timestamp: unknown, revid?: number) =>
  JSON.stringify({
    curtimestamp: '2023-01-01T00:00:00Z',
    query: {
      pages: {
        '736': {
          pageid: 736,
          title: 'Albert Einstein',
          revisions: [{ timestamp: '2001-01-15T00:00:00Z' }, { ...(revid ? { revid } : {}), timestamp }],
        },
      },
    },
  });

test('MediaWiki: a loose or impossible timestamp names the file, the revision and the value', async () => {
  for (const bad of [...BAD_TIMESTAMPS, 1_600_000_000]) {
    const file = await historiesFile('revisions.json', mediaWikiWith(bad));
    await assert.rejects(loadHistories(file), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'invalid_input');
      const where = `${file}: revision #2 of page "Albert Einstein": expected its timestamp`;
      assert.ok(e.message.startsWith(where), e.message);
      assert.ok(e.message.includes(' from 1990 to 2099 '), e.message);
      assert.ok(e.message.endsWith(`got ${quoteInput(bad)}`), e.message);
      return true;
    });
  }
  const withId = await historiesFile('ids.json', mediaWikiWith('2023-02-29T00:00:00Z', 1234));
  await assert.rejects(
    loadHistories(withId),
    invalid(/: revision revid 1234 of page "Albert Einstein": expected/),
  );
  const cur = await historiesFile(
    'cur.json',
    mediaWikiWith('2002-01-01T00:00:00Z').replace('2023-01-01T00:00:00Z', '2023-01-01 now'),
  );
  await assert.rejects(
    loadHistories(cur),
    invalid(/cur\.json: expected curtimestamp as an ISO 8601 timestamp.*got "2023-01-01 now"$/),
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

test('MediaWiki folder tree: one subfolder per category, a page in two categories counted once', async () => {
  const tree = join(fixtures, 'mediawiki-tree');
  assert.equal(await detectFormat(tree), 'mediawiki');
  const docs = (await loadHistories(tree)).map(plain).sort((a, b) => a.id.localeCompare(b.id));
  assert.deepEqual(docs, [
    {
      id: 'Entropy',
      start: ms('2020-01-01T00:00:00Z'),
      end: ms('2021-01-01T00:00:00Z'),
      changes: [ms('2020-03-01T00:00:00Z')],
    },
    {
      id: 'Science film',
      start: ms('2020-02-01T00:00:00Z'),
      end: ms('2021-01-01T00:00:00Z'),
      changes: [ms('2020-04-01T00:00:00Z'), ms('2020-05-01T00:00:00Z')],
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
