import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

test('an empty --now or --at (an unset variable in a crontab) is refused, never read as the wall clock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-empty-now-'));
  try {
    for (const args of [
      ['snapshot', '--now', '', '--out', join(dir, 'snapshots'), '--kernel', join(dir, 'kernel.txt')],
      ['tick', '--now', '', '--out', join(dir, 'snapshots')],
      ['plan', '--at', '', '--root', join(dir, 'snapshots')],
    ]) {
      const r = run(...args);
      assert.equal(r.status, 2, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, /--(now|at): expected an ISO 8601 instant/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs the CLI with note-process.ts loaded, and returns the process images it ran as. */
function images(env: Record<string, string>, ...args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'cli-images-'));
  try {
    const file = join(dir, 'images.ndjson');
    const r = spawnSync(process.execPath, ['--import', noteProcess, cli, ...args], {
      encoding: 'utf8',
      env: { ...withoutMallocSettings, ...env, NOTE_PROCESS_FILE: file },
    });
    const notes = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            pid: number;
            arenas: string | null;
            mmapThreshold: string | null;
            trimThreshold: string | null;
            argv: string[];
          },
      );
    return { status: r.status, stdout: r.stdout, notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const noteProcess = new URL('./note-process.ts', import.meta.url).pathname;
const {
  MALLOC_ARENA_MAX: _arenas,
  MALLOC_MMAP_THRESHOLD_: _mmap,
  MALLOC_TRIM_THRESHOLD_: _trim,
  ...withoutMallocSettings
} = process.env;

test('a crawling command replaces itself once with glibc malloc settings, same pid, same arguments', () => {
  const r = images({}, 'snapshot', '--no-such-option');
  assert.equal(r.status, 2, 'the exit code is the command’s');
  assert.deepEqual(
    r.notes.map((n) => [n.arenas, n.mmapThreshold, n.trimThreshold]),
    [
      [null, null, null],
      ['2', '4194304', '67108864'],
    ],
  );
  assert.equal(r.notes[0].pid, r.notes[1].pid);
  assert.deepEqual(r.notes[1].argv, ['snapshot', '--no-such-option']);
});

test('a malloc setting the operator gave is kept when the command replaces itself', () => {
  const r = images({ MALLOC_TRIM_THRESHOLD_: '131072' }, 'demo', '--help');
  assert.equal(r.status, 0);
  assert.deepEqual(
    r.notes.map((n) => [n.arenas, n.mmapThreshold, n.trimThreshold]),
    [
      [null, null, '131072'],
      ['2', '4194304', '131072'],
    ],
  );
});

test('a MALLOC_ARENA_MAX already set, or a command that does not crawl, runs as started', () => {
  assert.deepEqual(
    images({ MALLOC_ARENA_MAX: '4' }, 'tick', '--help').notes.map((n) => n.arenas),
    ['4'],
  );
  const help = images({}, 'stats', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Usage: observatory stats/);
  assert.deepEqual(
    help.notes.map((n) => n.arenas),
    [null],
  );
});
