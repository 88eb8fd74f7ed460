import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openCrawlArchive } from '../../pipeline/archive/index.ts';
import { ObservatoryError } from '../../pipeline/core/index.ts';
import { openJournal } from '../../pipeline/crawl/index.ts';
import { writeExpansion } from '../../pipeline/observe/index.ts';
import { runDir, saveRunState } from '../../pipeline/observe/run-state.ts';
import { verifySnapshot, writeFileAtomic } from '../../pipeline/snapshot/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { CLI } from '../commands/cli-process.ts';
import { publishWeek, record } from '../snapshot/sample-crawl.ts';
import { syntheticCrawl } from '../snapshot/synthetic-crawl.ts';
import { publishedContent } from '../soak/published-content.ts';
import { configFor, startServer } from '../web/http-server.ts';
import { fillDisk, mountSmallDisk } from './small-disk.ts';

/**
 * Issue #31, item 7: a full disk during a crawl said `observatory: ENOSPC: no space left on device,
 * write`, with no code and no file; early in a publish, DuckDB's failed rollback replaced the ENOSPC
 * with `TransactionContext Error: cannot rollback - no transaction is active`. Every write of a run
 * fails with `io`, the file and the system's code (ENOSPC), and the first error is the one reported.
 */

/** Asserts `error` is the `io` error of a full disk, naming `file`. */
function assertDiskFull(error: unknown, file: string | RegExp): true {
  assert.ok(error instanceof ObservatoryError, `not coded: ${error}`);
  assert.equal(error.code, 'io', error.message);
  assert.match(error.message, /ENOSPC/);
  if (typeof file === 'string') assert.ok(error.message.includes(file), error.message);
  else assert.match(error.message, file);
  return true;
}

const doc = (i: number) => ({
  t: 'doc' as const,
  depth: 0,
  record: record(`http://a.example/${i}`, Date.UTC(2026, 0, 5), {}),
  statements: [],
});

test('the crawl journal on a full disk: io naming the journal and ENOSPC, at that append, every later one and the close', () => {
  const disk = mountSmallDisk('1m');
  try {
    const journal = openJournal(join(disk.dir, 'crawl'), { syncEveryMs: 60_000 });
    journal.append(doc(0));
    fillDisk(disk.dir);
    const file = join(disk.dir, 'crawl', 'journal.ndjson');
    let first: unknown;
    assert.throws(
      () => {
        // a line may still fit the last page of the file
        for (let i = 1; i < 100; i++) journal.append(doc(i));
      },
      (error) => {
        first = error;
        return assertDiskFull(error, file);
      },
    );
    assert.throws(
      () => journal.append(doc(100)),
      (error) => error === first,
    );
    assert.throws(
      () => journal.close(),
      (error) => error === first,
    );
  } finally {
    disk.remove();
  }
});

test('the WARC writer on a full disk: io naming the WARC file and ENOSPC', async () => {
  const server = await startServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/turtle' })
      .end(`<${req.url}> <http://p/> "${'o'.repeat(9000)}" .\n`);
  });
  const disk = mountSmallDisk('1m');
  try {
    const config = configFor(server.port);
    const archive = openCrawlArchive({ dir: join(disk.dir, 'warc'), prefix: 'full', config, now: () => 0 });
    const fetcher = createFetcher(config, undefined, { observers: [archive] });
    await fetcher.fetchDocument('http://a.example/first');
    await archive.pointerOf(1);
    fillDisk(disk.dir);
    for (let i = 0; i < 20; i++) await fetcher.fetchDocument(`http://a.example/${i}`);
    await fetcher.close();
    await assert.rejects(archive.close(), (error) => assertDiskFull(error, /\/warc\/full-00000\.warc\.gz: /));
  } finally {
    disk.remove();
    await server.close();
  }
});

test('the run state on a full disk: io naming run.json and ENOSPC', async () => {
  const disk = mountSmallDisk('1m');
  try {
    const state = {
      kind: 'weekly' as const,
      name: '2026-01-05',
      startedAt: Date.UTC(2026, 0, 5),
      weekStart: Date.UTC(2026, 0, 5),
      slot: 0,
      seeds: ['http://a.example/'],
    };
    mkdirSync(runDir(disk.dir, state.name), { recursive: true });
    fillDisk(disk.dir);
    await assert.rejects(saveRunState(disk.dir, state), (error) =>
      assertDiskFull(error, join(runDir(disk.dir, state.name), 'run.json')),
    );
  } finally {
    disk.remove();
  }
});

test('the kernel list and the catalogue on a full disk: io naming the file and ENOSPC', async () => {
  const disk = mountSmallDisk('1m');
  try {
    fillDisk(disk.dir);
    const kernel = join(disk.dir, 'kernel.txt');
    const result = { complete: true, kernel: ['http://a.example/'], crawls: [], plds: [] };
    const meta = { seeds: 1, startedAt: '2026-01-05T00:00:00.000Z', endedAt: '2026-01-05T01:00:00.000Z' };
    await assert.rejects(
      writeExpansion(result, { kernel, report: join(disk.dir, 'expansion.json') }, meta),
      (error) => assertDiskFull(error, kernel),
    );
    const catalogue = join(disk.dir, 'index.json');
    await assert.rejects(writeFileAtomic(catalogue, '[]\n'.repeat(10_000)), (error) =>
      assertDiskFull(error, catalogue),
    );
  } finally {
    disk.remove();
  }
});

test('a publish whose staging fills the disk: io with ENOSPC, not the rollback DuckDB refuses after it', async () => {
  // 2,000 documents fit the journal copy, not DuckDB's write-ahead log beside it
  const disk = mountSmallDisk('6m');
  try {
    const start = Date.UTC(2026, 0, 5);
    await assert.rejects(publishWeek(disk.dir, start, syntheticCrawl(2000, 12, start)), (error) =>
      assertDiskFull(error, /cannot write the snapshot into .*publish\.duckdb.* \(ENOSPC\)$/),
    );
  } finally {
    disk.remove();
  }
});

/** Runs `observatory ARGS` to its end (at most a minute); its exit status and stderr. */
function runCli(args: readonly string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    }),
  );
}

/** The last line on stderr, after asserting that no stack trace came before it. */
function failureLine(stderr: string): string {
  assert.doesNotMatch(stderr, /^\s+at /m, stderr);
  return stderr
    .trimEnd()
    .split(/[\r\n]/)
    .at(-1)!;
}

test('observatory snapshot onto a disk that fills mid-crawl ends with one io line that says ENOSPC; with room again, the rerun publishes', async () => {
  const body = `${'<http://a.example/s> <http://a.example/p> "a literal of some length" .\n'.repeat(2000)}`;
  const server = await startServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/turtle' }).end(body.replaceAll('/s>', `${req.url}>`));
  });
  const disk = mountSmallDisk('1m');
  try {
    const kernel = join(mkdtempSync(join(tmpdir(), 'disk-full-kernel-')), 'kernel.txt');
    const seeds = Array.from({ length: 40 }, (_, i) => `http://a${i}.example/d${i}`);
    writeFileSync(kernel, `${seeds.join('\n')}\n`);
    const snapshot = [
      'snapshot',
      ...['--kernel', kernel, '--out', join(disk.dir, 'snapshots'), '--now', '2026-01-05'],
      ...['--resolve', `*=127.0.0.1:${server.port}`, '--allow-private', '--delay', '0'],
    ];
    const full = await runCli(snapshot);
    assert.equal(full.status, 1, full.stderr);
    assert.match(
      failureLine(full.stderr),
      /^observatory: cannot .*\/snapshots\/\.incomplete\/.*ENOSPC.* \[io\]$/,
    );
    // what docs/operating.md tells the operator: make room, run the same command again
    disk.grow('64m');
    const again = await runCli(snapshot);
    assert.equal(again.status, 0, again.stderr);
    const folder = join(disk.dir, 'snapshots', '2026-01-05');
    await verifySnapshot(folder);
    const content = await publishedContent(folder);
    assert.deepEqual(content.duplicateUrls, []);
    const urls = new Set(content.documents.map((line) => line.split(' ')[0]));
    assert.deepEqual(
      seeds.filter((url) => !urls.has(url)),
      [],
    );
  } finally {
    disk.remove();
    await server.close();
  }
});

test('a log file on a full disk stops the command with one io line naming it, where it hung for ever', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'disk-full-log-'));
  const kernel = join(dir, 'kernel.txt');
  writeFileSync(kernel, 'http://a.example/\n');
  // /dev/full refuses every write with ENOSPC; nothing listens on port 9: the fetch fails at once
  const r = await runCli([
    'snapshot',
    ...['--kernel', kernel, '--out', join(dir, 'snapshots'), '--now', '2026-01-05'],
    ...['--resolve', '*=127.0.0.1:9', '--allow-private', '--log', '/dev/full', '--log-level', 'debug'],
  ]);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(
    failureLine(r.stderr),
    'observatory: cannot write the log file /dev/full: ENOSPC: no space left on device, write [io]',
  );
});
