import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { linkSnapshotTables, sqlString } from '../../pipeline/snapshot/index.ts';
import { TABLE_NAMES } from '../../pipeline/snapshot/schema.ts';
import { MIXED_NAMES, publishMixedKinds } from './mixed-kinds.ts';
import { readRows } from './read-rows.ts';
import { publishWeek, source, WEEK2, week2 } from './sample-crawl.ts';

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'table-links-'));
  await publishMixedKinds(root);
});
after(() => rm(root, { recursive: true, force: true }));

/** Where the view holds a snapshot's table, relative to the root. */
function viewEntry(table: string, name: string): string {
  const kind = name.includes('T') ? 'interval' : 'weekly';
  return join('tables', table, `kind=${kind}`, `date=${name.slice(0, 10)}`, `${name}.parquet`);
}

const hive = (table: string) => sqlString(join(root, 'tables', table, '*', '*', '*.parquet'));

test('publishing lays out every table of every snapshot under tables/<table>/kind=/date=/', async () => {
  const files = (await readdir(join(root, 'tables'), { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
  const expected = TABLE_NAMES.flatMap((t) => MIXED_NAMES.map((n) => viewEntry(t, n))).sort();
  assert.equal(expected.length, 18);
  assert.deepEqual(files, expected);
});

test("each entry is a hard link of the snapshot folder's own file: same inode, no extra disk", async () => {
  for (const table of TABLE_NAMES) {
    for (const name of MIXED_NAMES) {
      const own = await stat(join(root, name, `${table}.parquet`));
      const linked = await stat(join(root, viewEntry(table, name)));
      assert.equal(linked.ino, own.ino, `${table} of ${name}`);
      assert.equal(own.nlink, 2, `${table} of ${name}`);
    }
  }
});

test('the hive glob gives, for the weekly kind, the rows of the per-folder glob, plus a DATE column', async () => {
  for (const table of TABLE_NAMES) {
    const viaView = await readRows(
      `SELECT * EXCLUDE (date) FROM read_parquet(${hive(table)}, hive_partitioning = true)
       WHERE kind = 'weekly' ORDER BY ALL`,
    );
    const viaFolders = await readRows(
      `SELECT * FROM read_parquet(${sqlString(join(root, '*', `${table}.parquet`))}) WHERE kind = 'weekly' ORDER BY ALL`,
    );
    assert.deepEqual(viaView, viaFolders, table);
    if (table === 'quads' || table === 'documents') assert.ok(viaView.length > 10, table);
  }
  assert.deepEqual(
    await readRows(
      `SELECT DISTINCT kind, typeof(date), date::VARCHAR, snapshot FROM read_parquet(${hive('documents')}, hive_partitioning = true) ORDER BY snapshot`,
    ),
    [
      ['weekly', 'DATE', '2026-11-16', '2026-11-16'],
      ['interval', 'DATE', '2026-11-17', '2026-11-17T1030Z'],
      ['weekly', 'DATE', '2026-11-23', '2026-11-23'],
    ],
  );
});

test('WHERE kind and date prune files: a query for the second week never opens the first', async () => {
  // the first week's entry becomes a file DuckDB cannot read (the link is replaced, the folder's file untouched)
  const first = join(root, viewEntry('quads', '2026-11-16'));
  await unlink(first);
  await writeFile(first, 'not a Parquet file');
  const week2 = await readRows(
    `SELECT snapshot, count(*) FROM read_parquet(${hive('quads')}, hive_partitioning = true)
     WHERE kind = 'weekly' AND date >= '2026-11-20' GROUP BY ALL`,
  );
  const [[statements]] = await readRows(
    `SELECT count(*) FROM read_parquet(${sqlString(join(root, '2026-11-23', 'quads.parquet'))})`,
  );
  assert.deepEqual(week2, [['2026-11-23', statements]]);
  // without the date, the damaged file is opened: the query above succeeded only because it was skipped
  await assert.rejects(
    readRows(
      `SELECT count(*) FROM read_parquet(${hive('quads')}, hive_partitioning = true) WHERE kind = 'weekly'`,
    ),
    /date=2026-11-16\/2026-11-16\.parquet/,
  );

  // linking again puts the snapshot's own file back in place of the stranger, and is then a no-op
  assert.deepEqual(await linkSnapshotTables(root, '2026-11-16', 'weekly'), {
    created: 0,
    replaced: 1,
    present: 5,
  });
  assert.equal((await stat(first)).ino, (await stat(join(root, '2026-11-16', 'quads.parquet'))).ino);
  assert.deepEqual(await linkSnapshotTables(root, '2026-11-16', 'weekly'), {
    created: 0,
    replaced: 0,
    present: 6,
  });
});

test('publishing a snapshot again (the rerun after a crash) restores its own entries, and only those', async () => {
  const entries = TABLE_NAMES.map((t) => join(root, viewEntry(t, '2026-11-23')));
  await Promise.all(entries.map((e) => unlink(e)));
  await unlink(join(root, viewEntry('documents', '2026-11-16')));
  const rerun = await publishWeek(root, WEEK2, source(week2()));
  assert.equal(rerun.alreadyPublished, true);
  for (const [i, entry] of entries.entries()) {
    assert.equal(
      (await stat(entry)).ino,
      (await stat(join(root, '2026-11-23', `${TABLE_NAMES[i]}.parquet`))).ino,
    );
  }
  await assert.rejects(stat(join(root, viewEntry('documents', '2026-11-16'))), { code: 'ENOENT' });
});
