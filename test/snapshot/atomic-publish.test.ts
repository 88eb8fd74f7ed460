import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listSnapshots, TABLES_DIR, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { LAST_OBSERVATIONS_DIR } from '../../pipeline/snapshot/last-observations.ts';

const child = new URL('./publish-child.ts', import.meta.url).pathname;
const NAME = '2026-11-16';
const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'snapshot-atomic-'));
  roots.push(root);
  return root;
}

/** Starts the publishing child and kills it with SIGKILL after `ms` (if it is still running). */
async function killAfter(root: string, ms: number): Promise<void> {
  const proc = spawn(process.execPath, [child, root], { stdio: 'ignore' });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  await Promise.race([sleep(ms), exited]);
  proc.kill('SIGKILL');
  await exited;
}

/** What anyone reading the root may see at any moment: nothing, or a complete, catalogued-or-not folder. */
async function assertNothingPartial(root: string, when: string): Promise<void> {
  const visible = (await readdir(root)).filter(
    (n) =>
      n !== '.incomplete' && n !== TABLES_DIR && n !== LAST_OBSERVATIONS_DIR && !n.startsWith('index.json'),
  );
  assert.ok(visible.length === 0 || (visible.length === 1 && visible[0] === NAME), `${when}: ${visible}`);
  if (visible.length === 1) await verifySnapshot(join(root, NAME));
  const names = (await listSnapshots(root)).map((e) => e.name);
  assert.ok(names.length === 0 || (names.length === 1 && visible.length === 1), `${when}: index ${names}`);
}

test('a publish killed with -9 at random points and rerun ends with the same folder, listed once', async () => {
  const reference = await tempRoot();
  const run = spawnSync(process.execPath, [child, reference], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);

  const root = await tempRoot();
  const delays = [80, 350, 650, 950, 1250, 1550].map((ms) => Math.round(ms + Math.random() * 250));
  for (const ms of delays) {
    await killAfter(root, ms);
    await assertNothingPartial(root, `after kill at ${ms} ms (delays ${delays})`);
  }
  const rerun = spawnSync(process.execPath, [child, root], { encoding: 'utf8' });
  assert.equal(rerun.status, 0, rerun.stderr);
  await assertNothingPartial(root, 'after the rerun');

  const sums = (r: string) => readFile(join(r, NAME, 'SHA256SUMS'), 'utf8');
  assert.equal(await sums(root), await sums(reference));
  assert.deepEqual(
    (await listSnapshots(root)).map((e) => [e.name, e.manifestSha256]),
    (await listSnapshots(reference)).map((e) => [e.name, e.manifestSha256]),
  );
  assert.deepEqual(await readdir(join(root, '.incomplete')), []);
  // nothing a kill left beside them (index.json's temporary, between writing and renaming it) stays
  assert.deepEqual(
    (await readdir(root)).sort(),
    ['.incomplete', LAST_OBSERVATIONS_DIR, NAME, TABLES_DIR, 'index.json'].sort(),
  );
  assert.equal((await readdir(join(root, LAST_OBSERVATIONS_DIR))).length, 2, 'last.json and its file alone');
  // a kill between the rename and the tables/ links left them out; the rerun made them
  const linked = await stat(
    join(root, TABLES_DIR, 'quads', 'kind=weekly', `date=${NAME}`, `${NAME}.parquet`),
  );
  assert.equal(linked.ino, (await stat(join(root, NAME, 'quads.parquet'))).ino);
});
