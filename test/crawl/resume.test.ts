import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { JOURNAL_FILE, openJournal } from '../../pipeline/crawl/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { listSnapshots } from '../../pipeline/snapshot/index.ts';

/**
 * kill -9 at random moments: `observatory expand` runs in a child process against a simulated Web
 * served by this test, is killed a few times and rerun until it completes; its kernel, journal and
 * published snapshot must equal those of an uninterrupted run, the crawl published once.
 */
const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
let sim: SimWeb;
let seedsFile: string;

before(async () => {
  sim = await startSimWeb({ seed: 21, docs: 1500, plds: 50, faults: 1, latencyScale: 0 });
  seedsFile = join(mkdtempSync(join(tmpdir(), 'resume-seeds-')), 'core.txt');
  await sim.writeCoreSeeds(seedsFile);
});

after(() => sim.close());

function expand(dir: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      cli,
      'expand',
      ...['--seeds', seedsFile, '--kernel', join(dir, 'kernel.txt'), '--work', join(dir, 'work')],
      ...['--out', join(dir, 'snapshots')],
      ...['--repeat', '1', '--hops', '2', '--keep-work', '--resolve', sim.resolveRule, '--allow-private'],
      ...['--delay', '0.02', '--concurrency', '16', '--timeout', '1s', '--log-level', 'silent'],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * The kernel without its header line (which names the start time), the journaled documents, and
 * the published crawl's documents.
 */
async function outcome(dir: string): Promise<{ kernel: string[]; documents: string[]; published: string[] }> {
  const kernel = readFileSync(join(dir, 'kernel.txt'), 'utf8').split('\n').slice(1);
  const journal = openJournal(join(dir, 'work', 'crawl-1'));
  const lines = [...journal.replay()];
  journal.close();
  const documents = lines.flatMap((l) => (l.t === 'doc' ? [l.record.url] : []));
  assert.equal(lines.at(-1)?.t, 'end', `${JOURNAL_FILE} ends complete`);
  const root = join(dir, 'snapshots');
  const snapshots = await listSnapshots(root);
  assert.deepEqual(
    snapshots.map((s) => s.kind),
    ['expand'],
    'the one crawl is published once',
  );
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  const rows = await db.runAndReadAll(
    `SELECT url FROM read_parquet('${join(root, snapshots[0].name, 'documents.parquet')}') ORDER BY url`,
  );
  db.closeSync();
  return { kernel, documents, published: rows.getRows().map((r) => String(r[0])) };
}

test('an expansion killed with SIGKILL at random moments and rerun equals an uninterrupted one', async () => {
  const reference = mkdtempSync(join(tmpdir(), 'resume-ref-'));
  assert.equal(await exited(expand(reference)), 0);
  const want = await outcome(reference);

  const dir = mkdtempSync(join(tmpdir(), 'resume-killed-'));
  let kills = 0;
  for (let run = 0; run < 20; run++) {
    const child = expand(dir);
    const killAt = kills < 4 ? 300 + Math.random() * 1500 : Number.POSITIVE_INFINITY;
    const timer = Number.isFinite(killAt) ? setTimeout(() => child.kill('SIGKILL'), killAt) : null;
    const code = await exited(child);
    if (timer) clearTimeout(timer);
    if (code === 0) break;
    kills++;
  }
  assert.ok(kills >= 2, `killed ${kills} times before it completed`);
  const got = await outcome(dir);
  assert.deepEqual(got.documents.length, new Set(got.documents).size, 'no document journaled twice');
  assert.deepEqual([...got.documents].sort(), [...want.documents].sort());
  assert.deepEqual(got.kernel, want.kernel);
  assert.deepEqual(got.published, [...got.documents].sort());
  assert.deepEqual(got.published, want.published);
});
