/**
 * `observatory status`: what an operator (or cron's MAILTO, or a monitoring check) learns of a
 * snapshots root, and its exit code: 0 healthy, 1 when a person is needed, 2 for bad input. Read
 * only: status never resumes, moves or takes over anything.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { acquirePidLock } from '../../pipeline/core/index.ts';
import type { Health } from '../../pipeline/observe/index.ts';
import { deadPid } from '../core/dead-pid.ts';
import { publishSampleWeeks, schedule, WEEK2 } from '../snapshot/sample-crawl.ts';
import { runCli } from './cli-process.ts';

const DAY = 86_400_000;
let root: string;

before(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'status-')), 'snapshots');
  await mkdir(root);
  await publishSampleWeeks(root, schedule());
});
after(() => rm(join(root, '..'), { recursive: true, force: true }));

async function status(at: number, ...more: string[]) {
  const run = await runCli([
    'status',
    '--root',
    root,
    '--now',
    new Date(at).toISOString(),
    '--json',
    ...more,
  ]);
  return { status: run.status, health: JSON.parse(run.stdout || 'null') as Health, stderr: run.stderr };
}

/** Every file under the root with its hash: status must leave it as it was. */
async function tree(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    files[path] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return files;
}

test('a root whose runs are on time is healthy: exit 0, the last weekly, the next ones due, the disk', async () => {
  const { status: code, health } = await status(WEEK2 + DAY);
  assert.equal(code, 0);
  assert.deepEqual(health.problems, []);
  assert.equal(health.lastWeekly?.name, '2026-11-23');
  assert.equal(health.lastTick, null);
  assert.equal(health.nextWeeklyDue, '2026-11-30T00:00:00.000Z');
  // the sample schedule's earliest re-visit: half a week after week two
  assert.equal(health.nextTickDue, new Date(WEEK2 + 302_400_000).toISOString());
  assert.equal(health.overdueDocuments, 0);
  assert.ok(health.disk.totalBytes > 0 && health.disk.freeBytes > 0 && health.disk.growthBytesPerWeek > 0);
});

test('a missed week and re-visits that no tick made need a person: exit 1, each named', async () => {
  const { status: code, health } = await status(WEEK2 + 9 * DAY);
  assert.equal(code, 1);
  assert.equal(health.problems.length, 2, health.problems.join('\n'));
  assert.match(health.problems[0], /weekly snapshot is late: 1 week since 2026-11-23/);
  // both documents of the sample schedule are due by then (half a week and a week after week two)
  assert.equal(health.overdueDocuments, 2);
  assert.match(health.problems[1], /2 kernel documents were due/);
  const human = await runCli(['status', '--root', root, '--now', new Date(WEEK2 + 9 * DAY).toISOString()]);
  assert.equal(human.status, 1);
  assert.match(human.stdout, /2 to look at:/);
});

test('an interrupted run, a damaged run and a stale lock are reported, and nothing is changed', async () => {
  const base = join(root, '.incomplete');
  const name = '2026-11-24T1030Z';
  await mkdir(join(base, name), { recursive: true });
  await writeFile(
    join(base, name, 'run.json'),
    JSON.stringify({
      kind: 'interval',
      name,
      startedAt: WEEK2 + 1.5 * DAY,
      weekStart: WEEK2,
      slot: 3,
      seeds: ['http://example.org/a'],
    }),
  );
  await mkdir(join(base, '2026-11-25T0900Z'));
  await writeFile(join(base, '2026-11-25T0900Z', 'run.json'), '{"torn');
  await writeFile(join(base, 'run.lock'), `${deadPid()}\n`);
  const before = await tree();
  const { status: code, health } = await status(WEEK2 + 4 * DAY);
  assert.equal(code, 1);
  assert.deepEqual(
    health.runs.map((r) => [r.name, r.state]),
    [
      [name, 'interrupted'],
      ['2026-11-25T0900Z', 'damaged'],
    ],
  );
  assert.deepEqual(
    health.staleLocks.map((l) => l.path),
    [join(base, 'run.lock')],
  );
  assert.ok(health.problems.some((p) => p.includes(`run ${name}`) && /interrupted/.test(p)));
  assert.ok(health.problems.some((p) => /2026-11-25T0900Z has a damaged run\.json/.test(p)));
  assert.deepEqual(await tree(), before, 'status changed nothing');
  await rm(base, { recursive: true, force: true });
});

test('a run at work shows as the live holder of the run lock, an expansion too (it keeps no run in .incomplete/)', async () => {
  await mkdir(join(root, '.incomplete'), { recursive: true });
  const release = await acquirePidLock(join(root, '.incomplete', 'run.lock'));
  try {
    const { status: code, health } = await status(WEEK2 + 2 * DAY);
    assert.equal(code, 0, 'a run at work needs nobody');
    assert.deepEqual(health.runLock, { pid: process.pid });
    assert.deepEqual(health.staleLocks, []);
    const text = await runCli(['status', '--root', root, '--now', new Date(WEEK2 + 2 * DAY).toISOString()]);
    assert.match(text.stdout, new RegExp(`run lock held by pid ${process.pid}`));
  } finally {
    await release();
  }
  assert.equal((await status(WEEK2 + 2 * DAY)).health.runLock, null);
});

test('a root that is not there is bad input: exit 2', async () => {
  const run = await runCli(['status', '--root', join(root, 'nope')]);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /no such folder/);
});
