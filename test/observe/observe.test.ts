import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import {
  clockStartingAt,
  crawlConfig,
  manualClock,
  parseResolveRule,
  silentLogger,
} from '../../pipeline/core/index.ts';
import { latestSchedule, runTick, runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { dueUrls, SLOT_MS, WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { listSnapshots, snapshotName } from '../../pipeline/snapshot/index.ts';

let sim: SimWeb;
let root: string;
let kernel: string[];
const W0 = Date.UTC(2026, 0, 5);

function ctx(at: number) {
  return {
    root,
    config: crawlConfig({
      resolve: [parseResolveRule(sim.resolveRule)],
      allowPrivate: true,
      delayMs: 1,
      timeoutMs: 3000,
      maxAttempts: 1,
    }),
    logger: silentLogger,
    clock: clockStartingAt(at),
    // these tests follow DyLDO's levels (the default strategy's are in live-strategy.test.ts)
    strategy: 'dyldo',
  };
}

async function weekly(at: number) {
  sim.setClock(at);
  return runWeeklySnapshot({ ...ctx(at), kernel, adaptiveRounds: 1 });
}

async function tick(at: number, maxDurationMs?: number) {
  sim.setClock(at);
  return runTick({ ...ctx(at), ...(maxDurationMs === undefined ? {} : { maxDurationMs }) });
}

async function rows(sql: string): Promise<unknown[][]> {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    return (await db.runAndReadAll(sql)).getRows();
  } finally {
    db.closeSync();
  }
}

before(async () => {
  sim = await startSimWeb({ seed: 11, docs: 400, plds: 30, latencyScale: 0, faults: 0, now: W0 });
  root = mkdtempSync(join(tmpdir(), 'observe-'));
  // the kernel: every document that dereferences to RDF, so that some change often enough to move up
  kernel = sim
    .truth(W0)
    .filter((r) => r.kind === 'document' && r.rdf)
    .map((r) => r.uri);
});

after(() => sim.close());

test('before any weekly snapshot a tick has nothing to do', async () => {
  assert.deepEqual(await tick(W0 + SLOT_MS), { status: 'no-weekly' });
});

test('three weeks of snapshots and a tick at every slot of the third week follow the DyLDO schedule', async () => {
  for (let week = 0; week < 3; week++) {
    const outcome = await weekly(W0 + week * WEEK);
    assert.equal(outcome.status, 'published');
    if (outcome.status === 'published') {
      assert.equal(outcome.snapshot.name, new Date(W0 + week * WEEK).toISOString().slice(0, 10));
    }
  }
  const w3 = W0 + 2 * WEEK;
  assert.equal((await tick(w3)).status, 'weekly-slot');
  const schedule = await latestSchedule(root);
  assert.equal(schedule.length, new Set(kernel).size);
  const byLevel = new Map<number, number>();
  for (const e of schedule) byLevel.set(e.level, (byLevel.get(e.level) ?? 0) + 1);
  assert.ok((byLevel.get(1) ?? 0) > 0, 'documents that changed in weeks 2 and 3 moved up to level 1');
  const levelOne = schedule
    .filter((e) => e.level === 1)
    .map((e) => e.url)
    .sort();
  for (let slot = 1; slot < 16; slot++) {
    const outcome = await tick(w3 + slot * SLOT_MS + 60_000);
    if (slot === 8) {
      assert.equal(outcome.status, 'published', `slot ${slot}`);
      if (outcome.status !== 'published') continue;
      assert.equal(outcome.due, levelOne.length);
      const crawled = await rows(
        `SELECT url FROM read_parquet('${join(outcome.snapshot.folder, 'documents.parquet')}') ORDER BY url`,
      );
      assert.deepEqual(
        crawled.map((r) => r[0]),
        levelOne,
      );
      assert.equal(outcome.snapshot.manifest.kind, 'interval');
      assert.equal(
        outcome.snapshot.name,
        new Date(w3 + 8 * SLOT_MS)
          .toISOString()
          .replace(/:(\d\d):.*$/, '$1Z')
          .replace(':', ''),
      );
    } else {
      assert.equal(outcome.status, 'nothing-due', `slot ${slot}`);
    }
  }
  assert.equal((await tick(w3 + 8 * SLOT_MS + 120_000)).status, 'already-published');
  assert.equal((await tick(w3 + WEEK + 60_000)).status, 'weekly-due');
});

test('the catalogue lists every published snapshot once, weekly and interval', async () => {
  const list = await listSnapshots(root);
  assert.deepEqual(
    list.map((s) => s.kind),
    ['weekly', 'weekly', 'weekly', 'interval'],
  );
  assert.equal(new Set(list.map((s) => s.name)).size, list.length);
});

test('a second weekly snapshot on the same day is not taken twice', async () => {
  const outcome = await weekly(W0 + 2 * WEEK + 3_600_000);
  assert.deepEqual(outcome, { status: 'exists', name: new Date(W0 + 2 * WEEK).toISOString().slice(0, 10) });
});

test('a tick with little time crawls what fits and the next slot takes the postponed first', async () => {
  const w4 = W0 + 3 * WEEK;
  assert.equal((await weekly(w4)).status, 'published');
  const schedule = await latestSchedule(root);
  let slot = 1;
  while (slot < 15 && dueUrls(schedule, w4 + slot * SLOT_MS).length < 2) slot++;
  const due = dueUrls(schedule, w4 + slot * SLOT_MS);
  assert.ok(due.length >= 2, `a slot of week 4 with several documents due (slot ${slot}: ${due.length})`);
  // a tick that may take a millisecond: nothing fits, and the most urgent document goes anyway
  const late = await tick(w4 + slot * SLOT_MS + 60_000, 1);
  assert.equal(late.status, 'published');
  if (late.status !== 'published') return;
  assert.equal(late.due, 1);
  assert.equal(late.postponed.length, due.length - 1);
  const next = await tick(w4 + (slot + 1) * SLOT_MS + 60_000);
  assert.equal(next.status, 'published');
  if (next.status !== 'published') return;
  const crawled = await rows(
    `SELECT url FROM read_parquet('${join(next.snapshot.folder, 'documents.parquet')}')`,
  );
  const urls = new Set(crawled.map((r) => r[0]));
  for (const url of late.postponed) assert.ok(urls.has(url), `${url} crawled in the next slot`);
});

test('slots count from the week boundary, not from when the weekly snapshot started', async () => {
  // a weekly snapshot that started 90 minutes late (cron delayed, lock held): its week still starts
  // at 00:00 UTC of its day, so slots, names and due times do not move with its measured start
  const w5 = W0 + 4 * WEEK;
  const weeklyRun = await weekly(w5 + 90 * 60_000);
  assert.equal(weeklyRun.status, 'published');
  if (weeklyRun.status !== 'published') return;
  assert.equal(weeklyRun.snapshot.name, new Date(w5).toISOString().slice(0, 10));
  const schedule = await latestSchedule(root);
  for (const e of schedule)
    assert.equal(
      (e.nextDue - w5) % SLOT_MS,
      0,
      `${e.url} due at a slot start (${new Date(e.nextDue).toISOString()})`,
    );
  let slot = 1;
  while (slot < 15 && dueUrls(schedule, w5 + slot * SLOT_MS).length === 0) slot++;
  assert.ok(dueUrls(schedule, w5 + slot * SLOT_MS).length > 0, 'a slot of week 5 with documents due');
  const start = w5 + slot * SLOT_MS;

  // 1 ms before the slot: still the slot before, where nothing is due yet (a clock that stands
  // still, since a real-time one would reach the boundary while the tick reads the catalogue)
  sim.setClock(start - 1);
  const before = await runTick({ ...ctx(start - 1), clock: manualClock(start - 1) });
  assert.deepEqual(
    before,
    slot === 1 ? { status: 'weekly-slot', slot: 0 } : { status: 'nothing-due', slot: slot - 1, missed: [] },
  );

  // at the first instant of the slot: published under the slot's start, started inside the slot
  const at = await tick(start);
  assert.equal(at.status, 'published');
  if (at.status !== 'published') return;
  assert.equal(at.snapshot.name, snapshotName('interval', start));
  assertInSlot(at.snapshot.manifest.startedAt, start);

  // 1 ms after: the same slot, already done
  assert.deepEqual(await tick(start + 1), { status: 'already-published', name: at.snapshot.name, slot });

  // a cron tick three hours into a later slot: named by that slot's start, started when it ran
  let late = slot + 1;
  while (late < 15 && dueUrls(await latestSchedule(root), w5 + late * SLOT_MS).length === 0) late++;
  const lateStart = w5 + late * SLOT_MS;
  const lateTick = await tick(lateStart + 3 * 3_600_000);
  assert.equal(lateTick.status, 'published', `slot ${late}`);
  if (lateTick.status !== 'published') return;
  assert.equal(lateTick.snapshot.name, snapshotName('interval', lateStart));
  assert.ok(Date.parse(lateTick.snapshot.manifest.startedAt) >= lateStart + 3 * 3_600_000);
  assertInSlot(lateTick.snapshot.manifest.startedAt, lateStart);

  // what the portal's Snapshots page lists side by side (catalogue name and start) agrees too
  for (const entry of (await listSnapshots(root)).filter((s) => s.kind === 'interval'))
    assertInSlot(entry.startedAt, Date.parse(entry.name.replace(/T(\d\d)(\d\d)Z$/, 'T$1:$2:00Z')));
});

/** An interval snapshot's start (the real start of its tick) lies in the slot its folder is named by. */
function assertInSlot(startedAt: string, slotStart: number): void {
  const t = Date.parse(startedAt);
  assert.ok(
    t >= slotStart && t < slotStart + SLOT_MS,
    `started ${startedAt} outside the slot ${new Date(slotStart).toISOString()}`,
  );
}

test('a tick whose clock is behind a later published slot does not publish its slot after it', async () => {
  // a tick with its clock a day ahead published a later slot; with the clock back, an earlier
  // slot's tick would come first in index.json (ordered by start) though published after it
  const interval = (await listSnapshots(root)).filter((s) => s.kind === 'interval');
  const newest = interval.at(-1)!;
  // a week starts at 00:00 UTC of its weekly snapshot's day, whenever that snapshot started
  const weekStart = Date.parse(
    `${(await listSnapshots(root)).filter((s) => s.kind === 'weekly').at(-1)!.name}T00:00:00Z`,
  );
  const published = new Set(interval.map((s) => s.name));
  let earlier = Math.floor((Date.parse(newest.startedAt) - weekStart) / SLOT_MS) - 1;
  while (earlier > 1 && published.has(snapshotName('interval', weekStart + earlier * SLOT_MS))) earlier--;
  const slotStart = weekStart + earlier * SLOT_MS;
  assert.ok(
    !published.has(snapshotName('interval', slotStart)),
    'an earlier slot of the week left unpublished',
  );
  const before = (await listSnapshots(root)).length;
  assert.deepEqual(await tick(slotStart + 60_000), {
    status: 'later-published',
    name: newest.name,
    slot: earlier,
  });
  assert.equal((await listSnapshots(root)).length, before, 'nothing published');
});
