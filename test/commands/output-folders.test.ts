/**
 * A careless `--out` must never destroy the observatory: every command that writes and empties an
 * output folder refuses the snapshots it reads, a folder holding them, a published snapshot folder
 * and a folder of files it did not write (exit 2), and leaves all of them as they were.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { publishSampleWeeks } from '../snapshot/sample-crawl.ts';
import { runCli } from './cli-process.ts';

let work: string;
let root: string;

/** Every file under `dir` with its SHA-256: what must be unchanged after a refused command. */
async function tree(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const e of entries.filter((x) => x.isFile())) {
    const path = join(e.parentPath, e.name);
    files[path] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return files;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'output-folders-'));
  root = join(work, 'project', 'snapshots');
  await mkdir(root, { recursive: true });
  await publishSampleWeeks(root);
  await writeFile(join(work, 'project', 'notes.txt'), 'an operator file\n');
});
after(() => rm(work, { recursive: true, force: true }));

const cases: ReadonlyArray<{ readonly name: string; readonly args: () => string[]; readonly says: RegExp }> =
  [
    {
      name: 'portal --out the snapshots root',
      args: () => ['portal', '--root', root, '--out', root],
      says: /lies inside/,
    },
    {
      name: 'portal --out the folder holding the snapshots root',
      args: () => ['portal', '--root', root, '--out', join(work, 'project')],
      says: /holds .*snapshots, which it reads/,
    },
    {
      name: 'portal --out inside a published snapshot',
      args: () => ['portal', '--root', root, '--out', join(root, '2026-11-16', 'site')],
      says: /lies inside/,
    },
    {
      name: 'report --out a published snapshot folder',
      args: () => ['report', '--root', root, '--out', join(root, '2026-11-23')],
      says: /lies inside/,
    },
    {
      name: 'report --out a folder of files it did not write',
      args: () => ['report', '--root', root, '--out', join(work, 'project')],
      says: /holds/,
    },
    {
      name: 'stats --data the snapshots root',
      args: () => ['stats', '--root', root, '--data', root],
      says: /--data .* lies inside/,
    },
    {
      name: 'portal --data a published snapshot folder',
      args: () => ['portal', '--root', root, '--out', join(work, 'site'), '--data', join(root, '2026-11-23')],
      says: /--data .* lies inside/,
    },
    {
      name: 'stats --data the folder holding the snapshots root',
      args: () => ['stats', '--root', root, '--data', join(work, 'project')],
      says: /--data .* holds .*snapshots/,
    },
    {
      name: 'demo --out the project folder',
      args: () => ['demo', '--out', join(work, 'project'), '--no-serve'],
      says: /holds files it did not write/,
    },
  ];

for (const c of cases) {
  test(`${c.name} is refused with exit 2 and changes nothing`, async () => {
    const before = await tree(join(work, 'project'));
    const run = await runCli(c.args());
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, c.says);
    assert.match(run.stderr, /invalid_input/);
    assert.deepEqual(await tree(join(work, 'project')), before);
  });
}

test('a portal folder of an earlier build is rebuilt; one with a foreign file is refused', async () => {
  const site = join(work, 'site');
  const data = join(work, 'portal-data');
  const build = () => runCli(['portal', '--root', root, '--out', site, '--data', data]);
  const first = await build();
  assert.equal(first.status, 0, first.stderr);
  const second = await build();
  assert.equal(second.status, 0, second.stderr);
  const foreign = join(work, 'elsewhere');
  await mkdir(foreign);
  await writeFile(join(foreign, 'keep.txt'), 'mine\n');
  const refused = await runCli(['portal', '--root', root, '--out', foreign, '--data', data]);
  assert.equal(refused.status, 2, refused.stderr);
  assert.equal(await readFile(join(foreign, 'keep.txt'), 'utf8'), 'mine\n');
});
