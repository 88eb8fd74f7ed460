import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_MARKER } from '../../pipeline/demo/index.ts';
import { CLI, runCli } from './cli-process.ts';

test('observatory demo runs the whole observatory and ends with a built portal', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-'));
  const { status, stdout, stderr } = await runCli([
    ...[
      'demo',
      '--docs',
      '600',
      '--plds',
      '40',
      '--weeks',
      '1',
      '--no-serve',
      '--portal-port',
      '0',
      '--out',
      dir,
    ],
  ]);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /600 documents, 40 PLDs/);
  assert.match(stdout, /kernel: \d+ URIs on \d+ PLDs/);
  assert.match(stdout, /week 1: weekly snapshot 2026-01-05/);
  assert.match(stdout, /week 2: weekly snapshot 2026-01-12/);
  assert.match(stdout, /\| weekly only \| \d+ \| \d+ \| \d+ \| [\d.]+% \| [\d.]+% \|/);
  // the default strategy's re-visits and DyLDO's, crawled on the same virtual clock
  assert.match(
    stdout,
    /\| weekly \+ ticks, cho-irregular \(default\) \| \d+ \| \d+ \| \d+ \| [\d.]+% \| [\d.]+% \|/,
  );
  assert.match(stdout, /\| weekly \+ ticks, dyldo \| \d+ \| \d+ \| \d+ \| [\d.]+% \| [\d.]+% \|/);
  assert.ok(
    existsSync(join(dir, 'compare', 'dyldo', 'snapshots', '2026-01-12')),
    "dyldo's series has its own folder",
  );
  assert.ok(existsSync(join(dir, 'portal', 'index.html')), 'the portal is built');
  const verify = spawnSync(process.execPath, [CLI, 'verify', '--root', join(dir, 'snapshots')], {
    encoding: 'utf8',
  });
  assert.equal(verify.status, 0, verify.stderr);
  assert.match(verify.stdout, /ok 2026-01-05/);
  assert.match(verify.stdout, /ok 2026-01-12/);
  // the expansion's crawl is published too, offered for download and drawn per round
  assert.match(verify.stdout, /^ok 2026-01-0\dT\d{4}Z-expand-1:/m);
  const downloads = readFileSync(join(dir, 'portal', 'downloads', 'index.html'), 'utf8');
  assert.match(downloads, /id="expansion"/);
  // the DCAT description's IRI of the crawl (downloads/#<name>) is its row there
  assert.match(downloads, /<tr id="2026-01-0\dT\d{4}Z-expand-1"/);
  assert.match(
    readFileSync(join(dir, 'portal', 'reproductions', 'index.html'), 'utf8'),
    /the one crawl of expansion run \d{4}-\d\d-\d\dT\d{4}Z/,
  );
  // the structured log was opened after the folder was emptied, so it is still there, full
  const log = readFileSync(join(dir, 'demo.log'), 'utf8').trim().split('\n');
  assert.ok(log.length > 10, `${log.length} log lines`);
  for (const line of log) assert.equal(typeof JSON.parse(line).level, 'number', line);
  assert.ok(existsSync(join(dir, DEMO_MARKER)), "the folder is marked as the demo's own");
});

test('demo --out refuses a folder holding files it did not write, and they survive', async () => {
  const home = await mkdtemp(join(tmpdir(), 'demo-home-'));
  await mkdir(join(home, 'notes'));
  await writeFile(join(home, 'notes', 'thesis.txt'), 'years of work\n');
  await writeFile(join(home, '.profile'), 'export A=1\n');
  const { status, stdout, stderr } = await runCli(['demo', '--no-serve', '--out', home]);
  assert.equal(status, 2, stderr);
  assert.equal(stdout, '', 'nothing started');
  assert.match(
    stderr,
    /^observatory: --out .*demo-home-\S+ holds files the demo did not write \(no \.observatory-demo in it\); .* \[invalid_input\]\n$/,
  );
  assert.deepEqual((await readdir(home)).sort(), ['.profile', 'notes']);
  assert.equal(readFileSync(join(home, 'notes', 'thesis.txt'), 'utf8'), 'years of work\n');

  const file = join(home, '.profile');
  const notAFolder = await runCli(['demo', '--no-serve', '--out', file]);
  assert.equal(notAFolder.status, 2);
  assert.match(notAFolder.stderr, /^observatory: --out .*\.profile is not a folder; .*\[invalid_input\]\n$/);
  assert.equal(readFileSync(file, 'utf8'), 'export A=1\n');
});
