import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { MIXED_NAMES, publishMixedKinds } from '../snapshot/mixed-kinds.ts';
import { runCli } from './cli-process.ts';

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'migrate-'));
  await publishMixedKinds(root);
});
after(() => rm(root, { recursive: true, force: true }));

/** Every file under tables/, relative to the root, with its inode. */
async function view(): Promise<Map<string, number>> {
  const entries = await readdir(join(root, 'tables'), { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return new Map(
    await Promise.all(files.map(async (f) => [relative(root, f), (await stat(f)).ino] as const)),
  );
}

test('migrate rebuilds a deleted tables/ from index.json as links, then finds nothing to do', async () => {
  const published = await view();
  assert.equal(published.size, 18);
  await rm(join(root, 'tables'), { recursive: true });

  const first = await runCli(['migrate', '--root', root]);
  assert.equal(first.status, 0, first.stderr);
  for (const name of MIXED_NAMES)
    assert.match(first.stdout, new RegExp(`^${name}: 6 links created, 0 replaced$`, 'm'));
  assert.match(first.stdout, /^3 snapshots in .*tables: 18 links created, 0 replaced, 0 already in place$/m);
  const migrated = await view();
  assert.deepEqual([...migrated.keys()].sort(), [...published.keys()].sort());
  for (const [path, ino] of migrated) {
    const [, table, , , file] = path.split('/');
    const own = await stat(join(root, file.replace(/\.parquet$/, ''), `${table}.parquet`));
    assert.equal(ino, own.ino, path);
  }

  const again = await runCli(['migrate', '--root', root]);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(
    again.stdout,
    `3 snapshots in ${join(root, 'tables')}: 0 links created, 0 replaced, 18 already in place\n`,
  );
  assert.deepEqual(await view(), migrated);
});

test('migrate says so when there is nothing to migrate, and refuses a root that does not exist', async () => {
  const empty = join(root, 'empty');
  await mkdir(empty);
  const none = await runCli(['migrate', '--root', empty]);
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /nothing to migrate/);
  assert.deepEqual(await readdir(empty), []);

  const missing = await runCli(['migrate', '--root', join(root, 'no-such-folder')]);
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /no such folder/);
});
