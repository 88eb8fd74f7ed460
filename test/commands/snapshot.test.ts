import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { CLI, runCli, snapshotCliArgs } from './cli-process.ts';

const NOW = '2026-01-05T00:00:00Z';
let sim: SimWeb;
let kernelFile: string;

before(async () => {
  // a little latency, so that a crawl lasts long enough to be killed in the middle
  sim = await startSimWeb({
    seed: 5,
    docs: 300,
    plds: 25,
    latencyScale: 0.3,
    faults: 0,
    now: Date.parse(NOW),
  });
  kernelFile = join(mkdtempSync(join(tmpdir(), 'kernel-')), 'kernel.txt');
  writeFileSync(kernelFile, `${sim.coreSeeds.join('\n')}\n`);
});

after(() => sim.close());

function args(out: string, kernel = kernelFile): string[] {
  return [
    ...snapshotCliArgs({ kernel, out, now: NOW, resolve: sim.resolveRule }),
    '--delay',
    '0.005',
    '--adaptive-rounds',
    '1',
  ];
}

/** A CLI run that needs no simulated Web from this process (spawnSync is safe there). */
function run(...argv: string[]) {
  return spawnSync(process.execPath, [CLI, ...argv], { encoding: 'utf8' });
}

async function documents(root: string): Promise<string[]> {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const reader = await db.runAndReadAll(
      `SELECT url || ' ' || segment || ' ' || coalesce(graph_hash, error) FROM read_parquet('${root}/2026-01-05/documents.parquet') ORDER BY url`,
    );
    return reader.getRows().map((r) => String(r[0]));
  } finally {
    db.closeSync();
  }
}

test('a snapshot killed with -9 at random moments resumes and ends as an uninterrupted one', async () => {
  const clean = mkdtempSync(join(tmpdir(), 'snap-clean-'));
  assert.equal((await runCli(args(clean))).status, 0);
  const expected = await documents(clean);
  assert.ok(expected.length > sim.coreSeeds.length, 'kernel and adaptive documents');

  const killed = mkdtempSync(join(tmpdir(), 'snap-killed-'));
  let kills = 0;
  for (let attempt = 0; attempt < 12; attempt++) {
    const child = spawn(process.execPath, [CLI, ...args(killed)], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300 + Math.random() * 1500);
    const code = await exited;
    clearTimeout(timer);
    if (code === 0) break;
    kills++;
  }
  assert.ok(kills > 0, 'the crawl was killed at least once');
  const rerun = await runCli(args(killed));
  assert.equal(rerun.status, 0, `a rerun after the last kill succeeds: ${rerun.stderr}`);
  assert.deepEqual(await documents(killed), expected);
  const verify = run('verify', '--root', killed);
  assert.equal(verify.status, 0, verify.stderr);
  assert.ok(!existsSync(join(killed, '.incomplete', '2026-01-05')), 'nothing left in .incomplete');
});

test('a missing or empty kernel says to run expand first, in one line with exit code 2', () => {
  const out = mkdtempSync(join(tmpdir(), 'snap-bad-'));
  const missing = run(...args(out, join(out, 'nope.txt')));
  assert.equal(missing.status, 2);
  assert.match(
    missing.stderr.trim(),
    /^observatory: no kernel at .*nope\.txt: run `observatory expand` first \(or give --kernel FILE\) \[invalid_input\]$/,
  );
  const empty = join(out, 'empty.txt');
  writeFileSync(empty, '# nothing yet\n');
  const none = run(...args(out, empty));
  assert.equal(none.status, 2);
  assert.match(none.stderr.trim(), /run `observatory expand` first/);
  assert.equal(none.stderr.trim().split('\n').length, 1);
});

test('an unwritable snapshots folder is one line naming it, exit code 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'snap-ro-'));
  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a folder');
  const r = await runCli(args(join(file, 'snapshots')));
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /a-file\/snapshots/);
  assert.match(r.stderr, /\[io\]$/m);
});
