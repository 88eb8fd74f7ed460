import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDb } from '../../pipeline/snapshot/duckdb-session.ts';
import { publishSampleWeeks } from './sample-crawl.ts';

const queries = new URL('../../docs/queries/', import.meta.url).pathname;
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'snapshot-queries-'));
  await publishSampleWeeks(root);
});
after(() => rm(root, { recursive: true, force: true }));

/** Runs a docs/queries file against the test snapshots (its paths say `snapshots/`). */
async function run(file: string): Promise<Record<string, unknown>[]> {
  const sql = (await readFile(join(queries, file), 'utf8')).replaceAll("'snapshots/", `'${root}/`);
  const session = await openDuckDb();
  try {
    return (await session.connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    session.close();
  }
}

const row = (rows: Record<string, unknown>[], key: string, value: unknown) =>
  rows.find((r) => r[key] === value);

/** One sanity check per query: shape and a value that follows from the sample crawl. */
const checks: Record<string, (rows: Record<string, unknown>[]) => void> = {
  'change-frequency-per-document.sql': (rows) => {
    assert.equal(rows.length, 8);
    assert.deepEqual(row(rows, 'url', 'http://example.org/a'), {
      url: 'http://example.org/a',
      observations: '2',
      comparisons: '1',
      changes: '1',
      change_rate: 1,
      observed_days: 7,
      changes_per_week_seen: 1,
    });
  },
  'change-frequency-per-pld.sql': (rows) => {
    assert.deepEqual(row(rows, 'pld', 'example.org'), {
      pld: 'example.org',
      documents: '7',
      comparisons: '5',
      changes: '2',
      change_rate: 0.4,
    });
  },
  'degree-of-change.sql': (rows) => {
    assert.deepEqual(
      rows.map((r) => [r.url, r.added, r.removed]),
      [
        ['http://example.org/h', '1', '0'],
        ['http://example.org/a', '1', '0'],
      ],
    );
  },
  'lifespan-availability.sql': (rows) => {
    const e = row(rows, 'url', 'http://example.org/e');
    assert.equal(e?.attempts, '2');
    assert.equal(e?.availability, 0.5);
    assert.equal(e?.last_status, 404);
    assert.equal(row(rows, 'url', 'http://other.example.net/f')?.availability, 0);
  },
  'statements-per-snapshot.sql': (rows) => {
    // the identity the query shows: every graph's statements are its rows in quads.parquet
    assert.deepEqual(
      rows.map((r) => [r.snapshot, r.statements, r.quads]),
      [
        ['2026-11-16', '15', '15'],
        ['2026-11-23', '17', '17'],
      ],
    );
  },
  'vocabulary-dynamics.sql': (rows) => {
    const person = row(rows, 'class', 'http://xmlns.com/foaf/0.1/Person');
    assert.deepEqual(person, {
      class: 'http://xmlns.com/foaf/0.1/Person',
      documents: '1',
      comparisons: '1',
      changes: '1',
      change_rate: 1,
    });
  },
  // the sample's second week: A gains a link to C, H a title (test/snapshot/delta.test.ts checks
  // these queries against the digest's figures with removals, classes and blank nodes)
  'delta-terms.sql': (rows) => {
    assert.deepEqual(
      rows.map((r) => [r.kind, r.term, r.added, r.removed, r.documents]),
      [
        ['link target', 'example.org', '1', '0', '1'],
        ['predicate', 'http://xmlns.com/foaf/0.1/knows', '1', '0', '1'],
        ['predicate', 'http://xmlns.com/foaf/0.1/title', '1', '0', '1'],
      ],
    );
  },
  'delta-churn-per-pld.sql': (rows) => {
    assert.deepEqual(rows, [
      { week: '2026-11-23', pld: 'example.org', changed_documents: '2', added: '2', removed: '0' },
    ]);
  },
  'redirect-chains.sql': (rows) => {
    assert.equal(rows.length, 2);
    assert.equal(rows[0].statuses, '301 303');
    assert.equal(rows[0].chain, 'https://example.org/d -> https://www.example.org/d2');
    assert.equal(rows[0].final_status, 200);
  },
};

test('every documented query has a check, and every check a query', async () => {
  const files = (await readdir(queries)).filter((f) => f.endsWith('.sql')).sort();
  assert.deepEqual(files, Object.keys(checks).sort());
});

for (const [file, check] of Object.entries(checks)) {
  test(`docs/queries/${file} runs on published snapshots with sensible results`, async () =>
    check(await run(file)));
}
