import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
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
  assert.ok(existsSync(join(dir, 'portal', 'index.html')), 'the portal is built');
  const verify = spawnSync(process.execPath, [CLI, 'verify', '--root', join(dir, 'snapshots')], {
    encoding: 'utf8',
  });
  assert.equal(verify.status, 0, verify.stderr);
  assert.match(verify.stdout, /ok 2026-01-05/);
  assert.match(verify.stdout, /ok 2026-01-12/);
});
