import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { listSnapshots } from '../../pipeline/snapshot/index.ts';
import { runCli, snapshotCliArgs } from '../commands/cli-process.ts';
import { killWhenJournaled } from '../commands/kill-when-journaled.ts';
import { startServer, type TestServer } from '../web/http-server.ts';

/**
 * Issue #13, item 1: one U+2028 or U+2029 in a literal blocked every later snapshot (JSON.stringify
 * leaves them raw, readline ends lines at them, the publisher read half lines and called the journal
 * damaged), and any damaged journal line stopped every later run until `.incomplete/` was deleted.
 */
const NOW = '2026-01-05T00:00:00Z';
const NAME = '2026-01-05';
const SEPARATED = 'line\u2028separator\u2029paragraph';
// `/held` on a PLD of its own, so that politeness never queues the other documents behind it
const url = (path: string) => `http://${path === 'held' ? 'held' : 'sep'}.example/${path}`;

let server: TestServer;
/** While set, `/held` is never answered: the crawl cannot finish and is killed with it in flight. */
let holding = true;
const held: ServerResponse[] = [];

before(async () => {
  server = await startServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === '/held' && holding) return void held.push(res);
    const literal = path === '/ls' ? SEPARATED : `plain ${path}`;
    res
      .writeHead(200, { 'content-type': 'text/turtle' })
      .end(`<${url(path.slice(1))}> <http://sep.example/p> ${JSON.stringify(literal)} .\n`);
  });
});
after(() => server.close());

function kernelFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sep-kernel-')), 'kernel.txt');
  writeFileSync(file, `${url('ls')}\n${url('other')}\n${url('held')}\n`);
  return file;
}

function snapshotArgs(out: string, kernel: string): string[] {
  return [
    ...snapshotCliArgs({ kernel, out, now: NOW, resolve: `*=127.0.0.1:${server.port}` }),
    '--delay',
    '0',
    '--adaptive-rounds',
    '0',
    // `/held` must still be in flight when the run is killed, however loaded the machine
    '--timeout',
    '1h',
  ];
}

const journalOf = (out: string) => join(out, '.incomplete', NAME, 'crawl', 'journal.ndjson');

/**
 * A snapshot killed with -9 once `/ls` and `/other` are journaled while `/held` hangs: a real
 * unfinished run in `.incomplete/`.
 */
async function killedRun(kernel: string): Promise<string> {
  holding = true;
  const out = mkdtempSync(join(tmpdir(), 'sep-out-'));
  await killWhenJournaled(snapshotArgs(out, kernel), journalOf(out), [url('ls'), url('other')]);
  for (const res of held.splice(0)) res.destroy();
  holding = false;
  return out;
}

async function publishedLiterals(out: string): Promise<Map<string, string>> {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const reader = await db.runAndReadAll(
      `SELECT graph, object FROM read_parquet('${join(out, NAME, 'quads.parquet')}') ORDER BY graph`,
    );
    return new Map(reader.getRows().map((r) => [String(r[0]), String(r[1])]));
  } finally {
    db.closeSync();
  }
}

const requests = (path: string) => server.seen.filter((s) => s.path === `/${path}`).length;

test('a literal with U+2028 and U+2029 is journaled on one line, resumed and published intact', async () => {
  const kernel = kernelFile();
  const before = requests('ls');
  const out = await killedRun(kernel);
  const journal = readFileSync(journalOf(out), 'utf8');
  assert.ok(journal.includes('line\\u2028separator\\u2029paragraph'), 'written escaped');
  assert.ok(!/[\u2028\u2029]/.test(journal), 'no raw separator in the journal');
  // what the code before the fix wrote: the separators raw inside the JSON string
  writeFileSync(journalOf(out), journal.replace('\\u2028', '\u2028').replace('\\u2029', '\u2029'));

  const resumed = await runCli(snapshotArgs(out, kernel));
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stdout, /\(resumed\)/);
  assert.equal(requests('ls') - before, 1, 'the journaled document is not fetched again');
  const literals = await publishedLiterals(out);
  assert.equal(literals.get(url('ls')), SEPARATED);
  assert.equal(literals.get(url('held')), 'plain /held');
});

test('expand publishes a kernel from a crawl whose literal holds U+2028 and U+2029', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sep-expand-'));
  const seeds = join(dir, 'core.txt');
  writeFileSync(seeds, `${url('ls')}\n`);
  const r = await runCli([
    'expand',
    '--seeds',
    seeds,
    '--kernel',
    join(dir, 'kernel.txt'),
    '--out',
    join(dir, 'snapshots'),
    '--repeat',
    '1',
    '--hops',
    '1',
    '--now',
    NOW,
    '--delay',
    '0',
    '--resolve',
    `*=127.0.0.1:${server.port}`,
    '--allow-private',
  ]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(readFileSync(join(dir, 'kernel.txt'), 'utf8').includes(url('ls')));
  assert.equal((await listSnapshots(join(dir, 'snapshots'))).length, 1, 'the crawl is published there');
});

/** Cuts the journal line of `path` in half, the way a disk or an editor damages a file. */
function damageLineOf(out: string, path: string): number {
  const lines = readFileSync(journalOf(out), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(`"record":{"url":"${url(path)}"`));
  lines[i] = lines[i].slice(0, lines[i].length / 2);
  writeFileSync(journalOf(out), lines.join('\n'));
  return i + 1;
}

test('a damaged journal line is skipped and reported; the run resumes and fetches its document again', async () => {
  const kernel = kernelFile();
  const out = await killedRun(kernel);
  const line = damageLineOf(out, 'ls');
  const before = requests('ls');

  const log = join(out, 'run.log');
  const resumed = await runCli([...snapshotArgs(out, kernel), '--log', log]);
  assert.equal(resumed.status, 0, resumed.stderr);
  const warned = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg.startsWith('damaged journal lines skipped'));
  assert.deepEqual(
    warned.map((w) => w.lines),
    [
      [{ line, kind: 'doc', url: url('ls'), round: null }],
      [{ line, kind: 'doc', url: url('ls'), round: null }],
    ],
    'in the log: once when the crawl resumes, once when it is published',
  );
  assert.ok(
    resumed.stderr.includes(
      `journal.ndjson: 1 damaged line(s) skipped (line ${line}: document "${url('ls')}")`,
    ),
    resumed.stderr,
  );
  assert.match(resumed.stderr, /fetches the documents of damaged lines again/);
  assert.match(resumed.stderr, /every document they held was fetched again later in the crawl/);
  assert.equal(requests('ls') - before, 1, 'fetched again');
  assert.deepEqual([...(await publishedLiterals(out)).keys()], [url('held'), url('ls'), url('other')]);
});

test('a damaged line in a finished crawl: published without its document, which is named as missing', async () => {
  const kernel = kernelFile();
  const out = await killedRun(kernel);
  // the same run, as if it had finished before its journal was damaged
  const finished = mkdtempSync(join(tmpdir(), 'sep-finished-'));
  cpSync(out, finished, { recursive: true });
  writeFileSync(journalOf(finished), `${readFileSync(journalOf(finished), 'utf8')}{"t":"end"}\n`);
  damageLineOf(finished, 'ls');

  const r = await runCli(snapshotArgs(finished, kernel));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /the crawl had ended: documents of damaged lines are missing from its snapshot/);
  assert.ok(r.stderr.includes(`1 document(s) are missing from what is published: "${url('ls')}"`), r.stderr);
  assert.deepEqual([...(await publishedLiterals(finished)).keys()], [url('other')]);
});

test('a run resumed on a clock that reads before its start still publishes, ending when it started', async () => {
  const kernel = kernelFile();
  const out = await killedRun(kernel);
  writeFileSync(journalOf(out), `${readFileSync(journalOf(out), 'utf8')}{"t":"end"}\n`);
  // the killed process started an hour after the --now the resumed one is given again
  const runFile = join(out, '.incomplete', NAME, 'run.json');
  const run = JSON.parse(readFileSync(runFile, 'utf8')) as { startedAt: number };
  const startedAt = Date.parse(NOW) + 3_600_000;
  writeFileSync(runFile, JSON.stringify({ ...run, startedAt }));

  const r = await runCli(snapshotArgs(out, kernel));
  assert.equal(r.status, 0, r.stderr);
  const manifest = JSON.parse(readFileSync(join(out, NAME, 'manifest.json'), 'utf8'));
  assert.deepEqual(
    [manifest.startedAt, manifest.endedAt],
    [new Date(startedAt).toISOString(), new Date(startedAt).toISOString()],
  );
});
