import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLI } from '../commands/cli-process.ts';
import { publishWeek } from '../snapshot/sample-crawl.ts';
import { syntheticCrawl } from '../snapshot/synthetic-crawl.ts';
import { mountSmallDisk, type SmallDisk } from './small-disk.ts';

/**
 * Issue #31, item 7: `observatory portal` with a folder on a read-only file system said ENOENT (Node's
 * recursive mkdir says ENOENT whatever stopped it), and a disk that filled under Astro was a bug
 * (`internal`). Every folder of the portal's path (--out, --data, the cache in it, Astro's output in
 * it) says EROFS or ENOSPC, coded `io`, in one line.
 */

let work: string;
let root: string;
let readOnly: SmallDisk;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'read-only-portal-'));
  root = join(work, 'snapshots');
  const start = Date.UTC(2026, 0, 5);
  await publishWeek(root, start, syntheticCrawl(50, 5, start));
  readOnly = mountSmallDisk('1m');
  for (const dir of ['empty', 'data', 'cached/cache'])
    mkdirSync(join(readOnly.dir, dir), { recursive: true });
  readOnly.readOnly();
});

after(() => readOnly?.remove());

/** `observatory portal ARGS` run to its end; its exit status and the last line it wrote on stderr. */
function portal(args: readonly string[]): Promise<{ status: number | null; line: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'portal', '--root', root, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) =>
    child.once('close', (status) => resolve({ status, line: stderr.trimEnd().split('\n').at(-1)!, stderr })),
  );
}

test('portal on a read-only file system: io and EROFS for --out, --data and the cache, never ENOENT', async () => {
  const ro = (path: string) => join(readOnly.dir, path);
  const cases = [
    ['--out', ro('dist'), '--data', join(work, 'data-1')],
    ['--out', ro('empty'), '--data', join(work, 'data-2')],
    ['--out', join(work, 'out-3'), '--data', ro('new-data')],
    // the cache folder inside an existing --data, and the folders inside an existing cache
    ['--out', join(work, 'out-4'), '--data', ro('data')],
    ['--out', join(work, 'out-5'), '--data', ro('cached')],
  ];
  for (const args of cases) {
    const r = await portal(args);
    assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
    // the phases reported before it (a line each without a terminal), then one coded failure line
    const failures = r.stderr
      .trimEnd()
      .split('\n')
      .filter((line) => line.startsWith('observatory:'));
    assert.equal(failures.length, 1, r.stderr);
    assert.equal(r.line, failures[0], r.stderr);
    assert.match(r.line, /^observatory: .*EROFS.* \[io\]$/, args.join(' '));
    assert.doesNotMatch(r.line, /ENOENT/);
  }
});

test('portal whose data folder fills up under Astro: io and ENOSPC, not a bug of the observatory', async () => {
  // the portal data fits in 2 MiB, Astro's output beside it does not
  const disk = mountSmallDisk('2m');
  try {
    const r = await portal(['--out', join(work, 'out-full'), '--data', disk.dir]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.line, /^observatory: .*ENOSPC.* \[io\]$/, r.stderr);
  } finally {
    disk.remove();
  }
});
