import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { manualClock } from '../../pipeline/core/index.ts';
import { readHistoryStats } from '../../pipeline/schedule/estimate/history-stats.ts';
import { snapshotHistories } from '../../pipeline/schedule/index.ts';
import {
  openDuckDb,
  publishSnapshot,
  readManifest,
  readSchedule,
  verifySnapshot,
} from '../../pipeline/snapshot/index.ts';
import { snapshotDigest } from '../../pipeline/stats/digest-cache.ts';
import { computePortalData, statsOptions } from '../../pipeline/stats/index.ts';
import { readRows } from './read-rows.ts';
import { source, WEEK1, WEEK2, week2 } from './sample-crawl.ts';

/**
 * Folders published with schema 1 stay readable after the bump to 2. The fixture is a real schema-1
 * snapshot: sample-crawl's week 1 published by the code of commit 4e85342 (TIMESTAMP columns,
 * redirects' `from`/`to`, no snapshot_start). Week 2 is published over it with today's code, so
 * change detection compares against a schema-1 previous observation.
 */
const FIXTURE = new URL('fixtures/schema-1/', import.meta.url).pathname;

let root: string;

before(async () => {
  // a zone other than UTC, so that reading schema 1's zoneless timestamps in the machine's zone shows
  process.env.TZ = 'America/New_York';
  root = await mkdtemp(join(tmpdir(), 'schema-v1-'));
  await cp(FIXTURE, root, { recursive: true });
  await publishSnapshot({
    root,
    name: '2026-11-23',
    kind: 'weekly',
    startedAt: WEEK2,
    endedAt: WEEK2 + 3_600_000,
    config: {},
    documents: source(week2()),
    clock: manualClock(WEEK2 + 7_200_000),
  });
});
after(() => rm(root, { recursive: true, force: true }));

test('a schema-1 folder still verifies, beside a schema-2 one', async () => {
  const manifest = JSON.parse(await readFile(join(root, '2026-11-16', 'manifest.json'), 'utf8'));
  assert.equal(manifest.schemaVersion, 1);
  assert.equal((await verifySnapshot(join(root, '2026-11-16'))).quads, 15);
  assert.equal((await verifySnapshot(join(root, '2026-11-23'))).name, '2026-11-23');
});

test('change detection against a schema-1 previous observation: same verdicts, times in UTC', async () => {
  const changes = await readRows(
    `SELECT url, previous_snapshot, previous_fetched_at::VARCHAR, changed, added, removed
     FROM read_parquet('${root}/2026-11-23/changes.parquet') WHERE url IN ('http://example.org/a', 'http://example.org/b')
     ORDER BY url`,
  );
  assert.deepEqual(changes, [
    ['http://example.org/a', '2026-11-16', '2026-11-16 00:01:00+00', true, 1, 0],
    ['http://example.org/b', '2026-11-16', '2026-11-16 00:01:01+00', false, 0, 0],
  ]);
  // and schema 2 writes its instants right in that zone too
  assert.deepEqual(
    await readRows(`SELECT epoch_ms(fetched_at), epoch_ms(snapshot_start) FROM read_parquet('${root}/2026-11-23/documents.parquet')
      WHERE url = 'http://example.org/a'`),
    [[WEEK2 + 60_000, WEEK2]],
  );
});

test('the portal statistics read a history that mixes both schema versions', async () => {
  const session = await openDuckDb();
  const digest = await snapshotDigest(
    session.connection,
    join(root, '2026-11-16'),
    await readManifest(join(root, '2026-11-16')),
    'schema-1-fixture',
    join(root, '.cache'),
  ).finally(() => session.close());
  assert.deepEqual(digest.redirectChains, [
    { url: 'http://example.org/d', hops: 2, chain: 'https://example.org/d -> https://www.example.org/d2' },
  ]);
  const data = await computePortalData(statsOptions({ root, dataDir: `${root}-portal` }));
  assert.deepEqual(
    data.snapshots.map((s) => s.name),
    ['2026-11-16', '2026-11-23'],
  );
});

test('the history readers (change histories, fetch statistics, schedule) read schema 1', async () => {
  const histories = await snapshotHistories(join(root, '*', 'documents.parquet'));
  // A changed in week 2: its schema-1 observation is the baseline, read at its UTC time
  const a = histories.find((h) => h.id === 'http://example.org/a');
  assert.ok(a);
  assert.equal(a.start, WEEK1 + 60_000);
  assert.equal(a.changes.length, 1);
  assert.ok(a.changes[0] > WEEK2);
  const stats = await readHistoryStats(root);
  assert.deepEqual([...stats.snapshots], ['2026-11-16', '2026-11-23']);
  assert.deepEqual(
    (await readSchedule(join(root, '2026-11-16'))).map((e) => [e.url, e.nextDue]),
    [['http://example.org/a', WEEK1 + 604_800_000]],
  );
});
