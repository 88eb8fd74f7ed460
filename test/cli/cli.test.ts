import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;

function run(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
}

test('--help lists the command and exits 0', () => {
  const r = run('--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /Usage: observatory/);
});

test('an unknown option is one line on stderr and exit code 2', () => {
  const r = run('--no-such-option');
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /unknown option/);
});
