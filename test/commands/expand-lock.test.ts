import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { listSnapshots } from '../../pipeline/snapshot/index.ts';
import { CLI, type CliRun, runCli, snapshotCliArgs } from './cli-process.ts';

/**
 * An expansion and a weekly snapshot on the same snapshots folder never crawl at the same time:
 * both hold the folder's run lock. A Web served here holds the first run's requests until the test
 * releases them, so that run is caught crawling for as long as the test needs, whatever the load.
 */
const EXPANDED = '2026-01-04T08:00:00Z';
const WEEK = '2026-01-05T00:00:00Z';

/** Requests in the order they arrived, as `host path`. */
const arrived: string[] = [];
/** The host whose requests are held until `release`; null: every request is answered at once. */
let heldHost: string | null = null;
let held: Array<() => void> = [];
let heard: () => void = () => {};
let port = 0;

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = `http://${req.headers.host?.replace(/:\d+$/, '')}${req.url}`;
  if (req.url === '/robots.txt') res.writeHead(404).end();
  else res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url}> <http://example.org/p> "x" .\n`);
}

const server = createServer((req, res) => {
  const host = req.headers.host?.replace(/:\d+$/, '') ?? '';
  arrived.push(`${host} ${req.url}`);
  heard();
  if (host === heldHost) held.push(() => answer(req, res));
  else answer(req, res);
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

/** The runs started in the background, stopped when a failed assertion left them held. */
const started: ChildProcess[] = [];

after(() => {
  release();
  for (const child of started) child.kill();
  server.close();
});

/**
 * Holds `host`'s requests until `release`: its crawl cannot end meanwhile. Only its: a run that
 * the lock failed to keep out crawls its own host to the end, and the test sees it succeed.
 */
function hold(host: string): void {
  arrived.length = 0;
  heldHost = host;
}

function release(): void {
  heldHost = null;
  for (const answerHeld of held) answerHeld();
  held = [];
}

/** Resolves once a request for `host` has arrived: its crawl is under way. */
function crawling(host: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (arrived.some((r) => r.startsWith(`${host} `))) resolve();
    };
    heard = check;
    check();
  });
}

const options = () => [
  ...['--resolve', `*=127.0.0.1:${port}`, '--allow-private', '--delay', '0', '--timeout', '600s'],
  ...['--log-level', 'silent'],
];

function expandArgs(dir: string, root: string): string[] {
  const seeds = join(dir, 'core.txt');
  writeFileSync(seeds, 'http://expand.test/seed\n');
  return [
    'expand',
    ...['--seeds', seeds, '--kernel', join(dir, 'kernel.txt'), '--work', join(dir, 'work')],
    ...['--out', root, '--repeat', '1', '--hops', '1', '--now', EXPANDED, ...options()],
  ];
}

function weeklyArgs(dir: string, root: string, lockWait: string): string[] {
  const kernel = join(dir, 'kernel-weekly.txt');
  writeFileSync(kernel, 'http://weekly.test/seed\n');
  return [
    ...snapshotCliArgs({ kernel, out: root, now: WEEK, resolve: `*=127.0.0.1:${port}` }),
    ...options(),
    ...['--adaptive-rounds', '1', '--lock-wait', lockWait],
  ];
}

/** `observatory ARGS` in a child process that the test can wait for while it runs other commands. */
function start(args: readonly string[]): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => {
    stdout += c;
  });
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  const done = new Promise<CliRun>((resolve) =>
    child.once('exit', (status) => resolve({ status, stdout, stderr })),
  );
  return { child, done };
}

const locked = (pid: number | undefined) =>
  new RegExp(`another observatory crawl is running already \\(pid ${pid} holds .*run\\.lock\\) \\[locked\\]`);

test('a weekly snapshot refuses, or waits for, an expansion crawling into its snapshots folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'expand-lock-'));
  const root = join(dir, 'snapshots');
  hold('expand.test');
  const expansion = start(expandArgs(dir, root));
  await crawling('expand.test');

  const refused = await runCli(weeklyArgs(dir, root, '0s'));
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, locked(expansion.child.pid));
  assert.ok(!existsSync(join(root, '.incomplete', '2026-01-05')), 'the refused snapshot began no run');

  const waiting = start(weeklyArgs(dir, root, '600s'));
  release();
  const [expanded, weekly] = await Promise.all([expansion.done, waiting.done]);
  assert.equal(expanded.status, 0, expanded.stderr);
  assert.equal(weekly.status, 0, weekly.stderr);
  const lastExpand = arrived.findLastIndex((r) => r.startsWith('expand.test '));
  const firstWeekly = arrived.findIndex((r) => r.startsWith('weekly.test '));
  assert.ok(firstWeekly > lastExpand, `the weekly crawl began after the expansion's: ${arrived.join(', ')}`);
  assert.deepEqual(
    (await listSnapshots(root)).map((s) => s.kind),
    ['expand', 'weekly'],
  );
});

test('an expansion refuses to crawl into a snapshots folder a weekly snapshot is crawling into', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'expand-lock-'));
  const root = join(dir, 'snapshots');
  hold('weekly.test');
  const weekly = start(weeklyArgs(dir, root, '0s'));
  await crawling('weekly.test');

  const refused = await runCli(expandArgs(dir, root));
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, locked(weekly.child.pid));
  assert.ok(!existsSync(join(dir, 'work')), 'the refused expansion began no crawl');
  assert.ok(!arrived.some((r) => r.startsWith('expand.test ')), arrived.join(', '));

  release();
  const done = await weekly.done;
  assert.equal(done.status, 0, done.stderr);
  assert.deepEqual(
    (await listSnapshots(root)).map((s) => s.kind),
    ['weekly'],
  );
});
