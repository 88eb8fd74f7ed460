import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { writeFileAtomic } from '../../pipeline/snapshot/index.ts';
import { deadPid } from './dead-pid.ts';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

test("an atomic write removes the temporaries killed writers left, and keeps a live writer's", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'temporaries-'));
  dirs.push(dir);
  const dead = `index.json.tmp-${deadPid()}`;
  const live = `index.json.tmp-${process.ppid}`;
  const other = `other.json.tmp-${deadPid()}`;
  for (const name of [dead, live, other, 'index.json.tmp-x']) await writeFile(join(dir, name), '{');
  await writeFileAtomic(join(dir, 'index.json'), '[]\n');
  assert.deepEqual((await readdir(dir)).sort(), ['index.json', 'index.json.tmp-x', live, other].sort());
  assert.equal(await readFile(join(dir, 'index.json'), 'utf8'), '[]\n');
});
