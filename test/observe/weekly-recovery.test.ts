/**
 * A weekly snapshot that did not finish in its slot (killed, disk full, the lock held by a tick)
 * costs a slot, not the week: cron starts `snapshot` once a week, so a tick resumes an interrupted
 * weekly run of its week, `snapshot` resumes one of a week that is over and then takes the current
 * week's, `snapshot` waits for a lock a tick holds, a run whose publish was killed after its
 * folder was in place is completed whatever options resume it, and a run journaled by a version of
 * another schema is crawled again. Found by the lifetime benchmark (issue #36).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { clockStartingAt, silentLogger } from '../../pipeline/core/index.ts';
import { runCrawl } from '../../pipeline/crawl/index.ts';
import {
  type ObserveContext,
  runExpansion,
  runTick,
  runWeeklySnapshot,
} from '../../pipeline/observe/index.ts';
import { SLOT_MS, WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import {
  listSnapshots,
  openDuckDb,
  SNAPSHOT_SCHEMA_VERSION,
  sqlString,
} from '../../pipeline/snapshot/index.ts';
import { rdfDocuments, simCrawlConfig } from './sim-weekly.ts';

let sim: SimWeb;
let kernel: string[];
const W0 = Date.UTC(2026, 0, 5);

before(async () => {
  sim = await startSimWeb({ seed: 5, docs: 200, plds: 20, latencyScale: 0, faults: 0, now: W0 });
  kernel = rdfDocuments(sim, W0);
});
after(() => sim.close());

function ctx(root: string, at: number, signal?: AbortSignal) {
  sim.setClock(at);
  return {
    root,
    config: simCrawlConfig(sim),
    logger: silentLogger,
    clock: clockStartingAt(at),
    ...(signal ? { signal } : {}),
  };
}

const weekly = (root: string, at: number, o: { signal?: AbortSignal; lockWaitMs?: number } = {}) =>
  runWeeklySnapshot({ ...ctx(root, at, o.signal), kernel, adaptiveRounds: 1, lockWaitMs: o.lockWaitMs });

/** A weekly run left in `.incomplete/` as a killed `snapshot` leaves it: stopped before it published. */
async function interruptedWeekly(root: string, at: number): Promise<string> {
  const stopped = await weekly(root, at, { signal: AbortSignal.abort() });
  assert.equal(stopped.status, 'stopped');
  assert.ok(existsSync(join(root, '.incomplete', stopped.name, 'run.json')));
  return stopped.name;
}

const names = async (root: string) => (await listSnapshots(root)).map((s) => s.name);

test('a tick resumes the weekly run of its week that was interrupted, and the next tick goes on with the week', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
  assert.equal((await weekly(root, W0)).status, 'published');
  const name = await interruptedWeekly(root, W0 + WEEK);
  const resumed = await runTick(ctx(root, W0 + WEEK + SLOT_MS));
  assert.equal(resumed.status, 'weekly-resumed');
  assert.deepEqual(await names(root), ['2026-01-05', name]);
  // the week is the resumed snapshot's: its slots are ticked, not "the weekly snapshot is due"
  const next = await runTick(ctx(root, W0 + WEEK + 2 * SLOT_MS));
  assert.ok(['published', 'nothing-due'].includes(next.status), next.status);
});

test('a tick resumes a weekly run of a week that is over, except in the first slot of a week, which is for snapshot', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
  assert.equal((await weekly(root, W0)).status, 'published');
  const name = await interruptedWeekly(root, W0 + WEEK);
  // a week later, in the slot where cron starts `snapshot`: left to it
  assert.equal((await runTick(ctx(root, W0 + 2 * WEEK + 60_000))).status, 'weekly-due');
  assert.ok(existsSync(join(root, '.incomplete', name, 'run.json')));
  // the next slot: taken over (snapshot was killed again, or did not run)
  assert.equal((await runTick(ctx(root, W0 + 2 * WEEK + SLOT_MS))).status, 'weekly-resumed');
  assert.deepEqual(await names(root), ['2026-01-05', name]);
});

test('snapshot resumes a weekly run of a week that is over, then takes the current week', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
  const name = await interruptedWeekly(root, W0);
  const outcome = await weekly(root, W0 + WEEK);
  assert.equal(outcome.status, 'published');
  if (outcome.status !== 'published') return;
  assert.equal(outcome.earlier?.name, name);
  assert.equal(outcome.snapshot.name, '2026-01-12');
  assert.deepEqual(await names(root), ['2026-01-05', '2026-01-12']);
});

test('snapshot waits for the run lock a live process holds, up to lockWaitMs, then fails with locked', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
  const lockModule = new URL('../../pipeline/core/pid-lock.ts', import.meta.url).href;
  const hold = (ms: number) => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { mkdirSync } from 'node:fs';
         import { acquirePidLock } from ${JSON.stringify(lockModule)};
         mkdirSync(${JSON.stringify(join(root, '.incomplete'))}, { recursive: true });
         const release = await acquirePidLock(${JSON.stringify(join(root, '.incomplete', 'run.lock'))});
         process.stdout.write('held\\n');
         setTimeout(async () => { await release(); process.exit(0); }, ${ms});`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const held = new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      exited.then(() => reject(new Error('the lock holder exited before holding the lock')));
    });
    return { held, exited, child };
  };
  const first = hold(60_000);
  await first.held;
  await assert.rejects(weekly(root, W0), { code: 'locked' });
  first.child.kill();
  await first.exited;
  const second = hold(1500);
  await second.held;
  const waited = await weekly(root, W0, { lockWaitMs: 20_000 });
  assert.equal(waited.status, 'published');
});

test('a run killed after its publish put the folder in place is completed by a run with other options (an upgrade)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
  let kept = '';
  // the run's folder as it is once the crawl is done: what a kill right after the publish leaves
  const crawl: ObserveContext['crawl'] = async (options, name) => {
    const result = await runCrawl(options);
    kept = mkdtempSync(join(tmpdir(), 'weekly-recovery-run-'));
    cpSync(join(root, '.incomplete', name), kept, { recursive: true });
    return result;
  };
  const first = await runWeeklySnapshot({ ...ctx(root, W0), crawl, kernel, adaptiveRounds: 1 });
  assert.equal(first.status, 'published');
  if (first.status !== 'published') return;
  const { name } = first.snapshot;
  const runFolder = join(root, '.incomplete', name);
  cpSync(kept, runFolder, { recursive: true });
  const state = JSON.parse(readFileSync(join(runFolder, 'run.json'), 'utf8'));
  writeFileSync(
    join(runFolder, 'run.json'),
    JSON.stringify({ ...state, endedAt: Date.parse(first.snapshot.manifest.endedAt) }),
  );
  // resumed by a process with other crawl options: before, "already published ... from a different crawl" at every run
  const again = await runWeeklySnapshot({
    ...ctx(root, W0 + 3_600_000),
    config: simCrawlConfig(sim, { delayMs: 5, timeoutMs: 2000 }),
    kernel,
    adaptiveRounds: 1,
  });
  assert.equal(again.status, 'published');
  if (again.status !== 'published') return;
  assert.equal(again.snapshot.name, name);
  assert.equal(again.snapshot.alreadyPublished, true);
  assert.equal(existsSync(runFolder), false);
  assert.deepEqual(await names(root), [name]);
});

/** A finished crawl's run folder, kept aside as it was before its publish. */
async function finishedRun(root: string, at: number): Promise<{ name: string; kept: string }> {
  let kept = '';
  const stop = new AbortController();
  const crawl: ObserveContext['crawl'] = async (options, name) => {
    const result = await runCrawl(options);
    kept = mkdtempSync(join(tmpdir(), 'weekly-recovery-run-'));
    cpSync(join(root, '.incomplete', name), kept, { recursive: true });
    // stopped before the publish: the run stays in .incomplete with its crawl complete
    stop.abort();
    return { ...result, complete: false };
  };
  const outcome = await runWeeklySnapshot({
    ...ctx(root, at, stop.signal),
    crawl,
    kernel,
    adaptiveRounds: 1,
  });
  assert.equal(outcome.status, 'stopped');
  return { name: outcome.name, kept };
}

/** The journal of `kept` with one literal changed to `marker`: a parse that differs from this version's. */
function alterJournal(folder: string, marker: string): void {
  const file = join(folder, 'crawl', 'journal.ndjson');
  let done = false;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => {
      if (done || !line.startsWith('{"t":"doc"')) return line;
      const doc = JSON.parse(line) as { statements: unknown[][] };
      const literal = doc.statements.find((st) => st[3] === 'l');
      if (!literal) return line;
      literal[2] = marker;
      done = true;
      return JSON.stringify(doc);
    });
  assert.ok(done, 'a journaled literal to alter');
  writeFileSync(file, lines.join('\n'));
}

async function publishedLiteral(root: string, name: string, marker: string): Promise<boolean> {
  const session = await openDuckDb();
  try {
    const rows = await session.connection.runAndReadAll(
      `SELECT count(*) FROM read_parquet(${sqlString(join(root, name, 'quads.parquet'))}) WHERE object = ${sqlString(marker)}`,
    );
    return Number(rows.getRows()[0][0]) > 0;
  } finally {
    session.close();
  }
}

test('a run journaled by a version of another schema fetches the documents of its rounds again; one of this schema is resumed as it is', async () => {
  const marker = 'parsed by another version';
  for (const [schemaVersion, crawledAgain] of [
    [undefined, true],
    [3, true],
    [SNAPSHOT_SCHEMA_VERSION, false],
  ] as const) {
    const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
    const { name, kept } = await finishedRun(root, W0);
    const runFolder = join(root, '.incomplete', name);
    cpSync(kept, runFolder, { recursive: true });
    alterJournal(runFolder, marker);
    const { schemaVersion: _, ...state } = JSON.parse(readFileSync(join(runFolder, 'run.json'), 'utf8'));
    writeFileSync(
      join(runFolder, 'run.json'),
      JSON.stringify(schemaVersion === undefined ? state : { ...state, schemaVersion }),
    );
    // a document only the old crawl had reached (a link its parse found): in its round's URL list
    const journaled = journaledUrls(runFolder);
    const extra = sim.scenarios.ok.url;
    assert.ok(!journaled.includes(extra));
    addToLastRound(runFolder, extra);
    // days later: the Web has changed since, so a crawl from the seeds alone would reach other documents
    const outcome = await weekly(root, W0 + 3 * 86_400_000);
    assert.equal(outcome.status, 'published', `schema ${schemaVersion}`);
    assert.equal(await publishedLiteral(root, name, marker), !crawledAgain, `schema ${schemaVersion}`);
    // fetched again are the documents of every round the old crawl began, the adaptive ones too:
    // none of what the server answered it is lost
    // (a crawl resumed as it is had ended: its journal is published as it stands)
    const expected = crawledAgain ? [...journaled, extra].sort() : journaled;
    assert.deepEqual(await publishedUrls(root, name), expected, `schema ${schemaVersion}`);
    assert.ok(
      journaled.some((u) => !kernel.includes(u)),
      'the crawl went beyond the kernel',
    );
  }
});

/** Adds `url` (one hop out) to the URL list of the last round the run's journal began. */
function addToLastRound(runFolder: string, url: string): void {
  const file = join(runFolder, 'crawl', 'journal.ndjson');
  const lines = readFileSync(file, 'utf8').split('\n');
  const last = lines.findLastIndex((l) => l.startsWith('{"t":"round"'));
  const round = JSON.parse(lines[last]) as { urls: [string, number][] };
  round.urls.push([url, 1]);
  lines[last] = JSON.stringify(round);
  writeFileSync(file, lines.join('\n'));
}

/** The URLs of a run's journaled documents, sorted. */
function journaledUrls(runFolder: string): string[] {
  return readFileSync(join(runFolder, 'crawl', 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"t":"doc"'))
    .map((l) => (JSON.parse(l) as { record: { url: string } }).record.url)
    .sort();
}

async function publishedUrls(root: string, name: string): Promise<string[]> {
  const session = await openDuckDb();
  try {
    const rows = await session.connection.runAndReadAll(
      `SELECT url FROM read_parquet(${sqlString(join(root, name, 'documents.parquet'))}) ORDER BY url`,
    );
    return rows.getRows().map((r) => String(r[0]));
  } finally {
    session.close();
  }
}

test('a root whose newest snapshot has a newer schema than this software is refused by snapshot, tick and expand (a rollback)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weekly-recovery-'));
  const first = await weekly(root, W0);
  assert.equal(first.status, 'published');
  if (first.status !== 'published') return;
  const manifest = join(first.snapshot.folder, 'manifest.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      ...JSON.parse(readFileSync(manifest, 'utf8')),
      schemaVersion: SNAPSHOT_SCHEMA_VERSION + 1,
    }),
  );
  const newer = new RegExp(
    `published in snapshot schema ${SNAPSHOT_SCHEMA_VERSION + 1}, newer than this software's`,
  );
  await assert.rejects(weekly(root, W0 + WEEK), { code: 'invalid_input', message: newer });
  await assert.rejects(runTick(ctx(root, W0 + SLOT_MS)), { code: 'invalid_input', message: newer });
  const work = join(root, 'expand-work');
  await assert.rejects(
    runExpansion({
      ...ctx(root, W0 + WEEK),
      seeds: kernel,
      repeat: 1,
      hops: 1,
      workDir: work,
      publish: { root },
    }),
    { code: 'invalid_input', message: newer },
  );
  assert.ok(!existsSync(work), 'the expansion began no crawl');
  assert.deepEqual(await names(root), [first.snapshot.name]);
});
