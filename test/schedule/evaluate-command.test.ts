import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
const fixtures = new URL('./fixtures/', import.meta.url).pathname;

function run(...args: string[]) {
  return spawnSync(process.execPath, [cli, 'evaluate', ...args], { encoding: 'utf8' });
}

test('evaluate prints the table and writes CSV, JSON and SVG charts', async () => {
  const out = await mkdtemp(join(tmpdir(), 'evaluate-'));
  try {
    const r = run(
      '--histories',
      join(fixtures, 'histories.jsonl'),
      '--strategies',
      'week,fix',
      '--span',
      '21d',
      '--out',
      out,
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\| week\s+\|/);
    const csv = await readFile(join(out, 'results.csv'), 'utf8');
    // document "a": changes on days 1, 2, 10; week downloads on days 7, 14, 21 -> 2 of 3 captured
    assert.match(csv, /^week,2-7 days,1,3,2,3,0\.667,0\.667$/m);
    const svg = await readFile(join(out, 'tradeoff.svg'), 'utf8');
    assert.match(svg, /^<svg/);
    assert.match(await readFile(join(out, 'monthly.svg'), 'utf8'), /<svg/);
    const json = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    assert.equal(json.comparison.rows.length, 2);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test('bad input is one line on stderr and exit code 2', () => {
  const malformed = run('--histories', join(fixtures, 'malformed.jsonl'));
  assert.equal(malformed.status, 2);
  assert.equal(malformed.stderr.trim().split('\n').length, 1);
  assert.match(malformed.stderr, /malformed\.jsonl:2/);
  const strategy = run('--synthetic', '1', '--strategies', 'fix,nope');
  assert.equal(strategy.status, 2);
  assert.match(strategy.stderr, /unknown strategy "nope"/);
  const bounds = run('--synthetic', '1', '--max', '6m');
  assert.equal(bounds.status, 2);
  assert.match(bounds.stderr, /6mo is six months/);
  // Date.parse took this as 2020-01-01 (and 2020-02-30 as March 1)
  for (const start of ['2020-01-01 junk', '2020-02-30']) {
    const loose = run('--synthetic', '1', '--start', start);
    assert.equal(loose.status, 2, loose.stderr);
    assert.ok(
      loose.stderr.includes(`--start: expected an ISO 8601 timestamp from 1990 to 2099`),
      loose.stderr,
    );
  }
});

test('evaluate --out refuses a folder of files it did not write before replaying anything, and rewrites its own', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'evaluate-out-'));
  try {
    const args = ['--histories', join(fixtures, 'histories.jsonl'), '--strategies', 'week', '--span', '21d'];
    await writeFile(join(dir, 'notes.txt'), 'mine\n');
    const refused = run(...args, '--out', dir);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /holds files it did not write \(no \.observatory-evaluate in it\)/);
    assert.equal(refused.stdout, '', 'refused before the replay');
    assert.deepEqual(await readdir(dir), ['notes.txt']);
    const own = join(dir, 'evaluation');
    for (let i = 0; i < 2; i++)
      assert.equal(run(...args, '--out', own).status, 0, 'an earlier evaluation is rewritten');
    assert.ok((await readdir(own)).includes('.observatory-evaluate'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
