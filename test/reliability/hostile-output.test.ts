import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { crawlConfig, parseResolveRule } from '../../pipeline/core/index.ts';
import { readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { CLI } from '../commands/cli-process.ts';
import { crawlInto } from '../crawl/sim-crawl.ts';
import { startServer } from '../web/http-server.ts';

/**
 * Issue #13, item 9: a host the Public Suffix List library cannot parse (`evil{}.org`) left the whole
 * URL in documents.pld, and a read-only output folder was reported as ENOENT (Node's recursive mkdir
 * says ENOENT whatever stopped it).
 */

test('documents on a host the PSL library refuses get that host as their PLD, never their URL', async () => {
  const server = await startServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/turtle' })
      .end('<http://x.example/s> <http://x.example/p> "o" .');
  });
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${server.port}`)],
    allowPrivate: true,
    delayMs: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'evil-host-'));
  try {
    await crawlInto(dir, config, {
      seeds: ['http://evil{}.org/a', 'http://www.evil{}.org/b'],
      maxDepth: 0,
      maxRounds: 1,
      maxDocuments: 2,
      segmentFor: () => 'kernel',
    });
    const plds = new Map<string, string>();
    for await (const { record } of readJournalDocuments(dir)) plds.set(record.url, record.pld);
    assert.deepEqual(
      plds,
      new Map([
        ['http://evil{}.org/a', 'evil{}.org'],
        ['http://www.evil{}.org/b', 'evil{}.org'],
      ]),
    );
  } finally {
    await server.close();
  }
});

test('a read-only output folder is an io error that says read-only, for every command that writes', (t) => {
  const mountPoint = mkdtempSync(join(tmpdir(), 'read-only-'));
  // root writes through chmod, so only a read-only mount makes the folder read-only for everyone
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', mountPoint], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) {
    t.skip(
      `cannot mount a read-only tmpfs here (needs root and mount): ${mounted.stderr.trim() || mounted.error}`,
    );
    return;
  }
  try {
    const inputs = mkdtempSync(join(tmpdir(), 'read-only-inputs-'));
    const kernel = join(inputs, 'kernel.txt');
    writeFileSync(kernel, 'http://ro.example/a\n');
    const cases: string[][] = [
      ['snapshot', '--kernel', kernel, '--out', mountPoint],
      ['snapshot', '--kernel', kernel, '--out', join(mountPoint, 'snapshots')],
      ['tick', '--out', mountPoint],
      ['expand', '--seeds', kernel, '--kernel', join(mountPoint, 'kernel.txt'), '--out', mountPoint],
      ['snapshot', '--kernel', kernel, '--out', inputs, '--log', join(mountPoint, 'logs', 'snapshot.json')],
    ];
    for (const args of cases) {
      // spawnSync is safe: the command stops at its first folder, before any fetch
      const r = spawnSync(process.execPath, [CLI, ...args, '--resolve', '*=127.0.0.1:9', '--allow-private'], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const line = r.stderr.trim();
      assert.equal(r.status, 1, `${args.join(' ')}: ${line}`);
      assert.equal(line.split('\n').length, 1, line);
      assert.ok(line.includes(`${mountPoint} is on a read-only file system (EROFS) [io]`), line);
    }
  } finally {
    spawnSync('umount', [mountPoint]);
  }
});
