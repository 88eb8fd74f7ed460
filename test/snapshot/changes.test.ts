import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openDuckDb } from '../../pipeline/snapshot/duckdb-session.ts';
import { listSnapshots, readManifest, readSchedule, readTableSql } from '../../pipeline/snapshot/index.ts';
import { publishSampleWeeks, schedule, week2 } from './sample-crawl.ts';

let root: string;
let rows: Map<string, Record<string, unknown>>;
let verdicts: ReadonlyMap<string, boolean | null> = new Map();

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'snapshot-changes-'));
  await publishSampleWeeks(root, (changes) => {
    verdicts = changes;
    return schedule();
  });
  const session = await openDuckDb();
  const result = await session.connection.runAndReadAll(
    `SELECT * FROM read_parquet('${root}/2026-11-23/changes.parquet')`,
  );
  rows = new Map(result.getRowObjectsJson().map((r) => [String(r.url), r as Record<string, unknown>]));
  session.close();
});
after(() => rm(root, { recursive: true, force: true }));

const pick = (url: string, ...keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, rows.get(`http://example.org/${url}`)?.[k]]));

test('an added triple is a change with added = 1', () => {
  assert.deepEqual(
    pick('a', 'previous_snapshot', 'changed', 'added', 'removed', 'previous_graph_hash', 'graph_hash'),
    {
      previous_snapshot: '2026-11-16',
      changed: true,
      added: '1',
      removed: '0',
      previous_graph_hash: 'hash-a1',
      graph_hash: 'hash-a2',
    },
  );
  assert.equal(rows.get('http://example.org/a')?.previous_fetched_at, '2026-11-16 00:01:00+00');
});

test('a triple added next to relabelled blank nodes counts as one added triple', () => {
  assert.deepEqual(pick('h', 'changed', 'added', 'removed'), { changed: true, added: '1', removed: '0' });
});

test('relabelled blank nodes and reordered triples are not a change', () => {
  for (const url of ['b', 'c', 'd']) {
    assert.deepEqual(pick(url, 'changed', 'added', 'removed', 'availability_changed'), {
      changed: false,
      added: '0',
      removed: '0',
      availability_changed: false,
    });
  }
});

test('a 304 that carried the statements over is available and unchanged, not an availability change', () => {
  assert.deepEqual(pick('c', 'changed', 'availability_changed', 'status', 'previous_status'), {
    changed: false,
    availability_changed: false,
    status: 304,
    previous_status: 200,
  });
});

test('folders of schema 1-3, which counted 200 -> 304 as an availability change, are read corrected', async () => {
  const session = await openDuckDb();
  const old = join(root, 'schema-3-changes.parquet');
  // the value schema 3 published: any difference of status or error
  await session.connection.run(`COPY (SELECT * REPLACE (CASE WHEN previous_snapshot IS NULL THEN NULL
      ELSE status IS DISTINCT FROM previous_status OR error IS DISTINCT FROM previous_error END AS availability_changed)
    FROM read_parquet('${root}/2026-11-23/changes.parquet')) TO '${old}' (FORMAT parquet)`);
  const read = async (version: 3 | 4) =>
    (
      await session.connection.runAndReadAll(
        `SELECT url, availability_changed FROM (${readTableSql(old, 'changes', version, {
          startedAt: '2026-11-23T00:00:00.000Z',
          kind: 'weekly',
        })}) ORDER BY url`,
      )
    ).getRows();
  const asRead = await read(3);
  const asWritten = await read(4);
  session.close();
  const c = (rows: unknown[][]) => rows.find((r) => r[0] === 'http://example.org/c')?.[1];
  assert.equal(c(asWritten), true, 'the copy holds the old, wrong value');
  assert.equal(c(asRead), false);
  assert.deepEqual(
    asRead.filter((r) => r[0] !== 'http://example.org/c'),
    asWritten.filter((r) => r[0] !== 'http://example.org/c'),
  );
});

test('bytes downloaded leave out the body a 304 confirmed: it was not downloaded again', async () => {
  const manifest = await readManifest(join(root, '2026-11-23'));
  const downloaded = week2()
    .filter((d) => d.record.status !== 304)
    .reduce((sum, d) => sum + d.record.bytes, 0);
  assert.equal(manifest.stats.bytes, downloaded);
  assert.ok(
    week2().some((d) => d.record.status === 304 && d.record.bytes > 0),
    'the 304 row repeats a size',
  );
});

test('a document that went 404 is an availability change, not a content change', () => {
  assert.deepEqual(
    pick(
      'e',
      'changed',
      'added',
      'availability_changed',
      'status',
      'previous_status',
      'error',
      'previous_error',
    ),
    {
      changed: null,
      added: null,
      availability_changed: true,
      status: 404,
      previous_status: 200,
      error: 'http_4xx',
      previous_error: null,
    },
  );
  const f = rows.get('http://other.example.net/f');
  assert.equal(f?.availability_changed, false);
  assert.equal(f?.changed, null);
});

test('a new document has no previous observation', () => {
  assert.deepEqual(pick('g', 'previous_snapshot', 'changed', 'availability_changed'), {
    previous_snapshot: null,
    changed: null,
    availability_changed: null,
  });
});

test('the manifest summarises changes and the schedule is published', async () => {
  const manifest = await readManifest(join(root, '2026-11-23'));
  assert.deepEqual(manifest.previousSnapshots, ['2026-11-16']);
  assert.deepEqual(manifest.stats.changes, {
    changed: 2,
    unchanged: 3,
    new: 1,
    notComparable: 2,
    availabilityChanged: 1,
    triplesAdded: 2,
    triplesRemoved: 0,
  });
  assert.equal(manifest.counts.schedule, 2);
  const session = await openDuckDb();
  const plan = (
    await session.connection.runAndReadAll(
      `SELECT * FROM read_parquet('${root}/2026-11-23/schedule.parquet')`,
    )
  ).getRowObjectsJson();
  session.close();
  assert.deepEqual(plan[0], {
    snapshot: '2026-11-23',
    snapshot_start: '2026-11-23 00:00:00+00',
    kind: 'weekly',
    url: 'http://example.org/a',
    level: 1,
    interval_ms: '302400000',
    next_due: '2026-11-26 12:00:00+00',
    strategy: 'dyldo',
    state: '{"run":1}',
  });
  assert.deepEqual(
    (await listSnapshots(root)).map((e) => e.name),
    ['2026-11-16', '2026-11-23'],
  );
});

test('a schedule derived from change verdicts sees every URL and reads back unchanged', async () => {
  assert.equal(verdicts.size, 8);
  assert.equal(verdicts.get('http://example.org/a'), true);
  assert.equal(verdicts.get('http://example.org/b'), false);
  assert.equal(verdicts.get('http://example.org/e'), null);
  assert.deepEqual(await readSchedule(join(root, '2026-11-23')), schedule());
});
