/**
 * What the coordinator says about its workers (watch.ts), on a clock the test moves and the
 * worker rows it would read (crawlWorkers' queries answered by a stand-in pool): one scene per
 * line, what the database holds then and what the log gets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type pg from 'pg';
import { pino } from 'pino';
import { CrawlWatch, type WatchTimes } from '../../pipeline/distributed/watch.ts';

const TIMES: WatchTimes = { everyMs: 100, noWorkerMs: 300, quietMs: 1000, repeatMs: 2000 };

interface Row {
  readonly id: string;
  readonly live: boolean;
  readonly failure: string | null;
  readonly leased: number;
}

interface Scene {
  readonly at: number;
  readonly waiting: number;
  readonly recorded: number;
  readonly workers: readonly Row[];
  readonly elsewhere?: number;
  /** The messages logged at this look, `level: message` (the message's first words). */
  readonly said: readonly string[];
}

const live = (id: string, leased = 1): Row => ({ id, live: true, failure: null, leased });
const failed = (id: string, error: string): Row => ({
  id,
  live: false,
  failure: JSON.stringify(error),
  leased: 0,
});

const SCENES: readonly Scene[] = [
  { at: 0, waiting: 10, recorded: 0, workers: [], said: [] },
  { at: 200, waiting: 10, recorded: 0, workers: [], said: [] },
  { at: 350, waiting: 10, recorded: 0, workers: [], said: ['warn: no worker is crawling'] },
  { at: 500, waiting: 10, recorded: 0, workers: [], said: [] },
  { at: 600, waiting: 10, recorded: 2, workers: [live('w1')], said: ['info: workers crawl again'] },
  { at: 650, waiting: 8, recorded: 2, workers: [live('w1')], said: [] },
  // w1 stops on an error: said once, and that nobody is left, at once
  {
    at: 800,
    waiting: 8,
    recorded: 2,
    workers: [failed('w1', 'injected \u0000 failure')],
    said: ['error: worker stopped on an error', 'warn: no worker is crawling'],
  },
  { at: 1000, waiting: 8, recorded: 2, workers: [failed('w1', 'injected \u0000 failure')], said: [] },
  // the workers serve another observatory's crawl
  {
    at: 3000,
    waiting: 8,
    recorded: 2,
    workers: [],
    elsewhere: 2,
    said: ['warn: no worker serves this crawl'],
  },
  { at: 3200, waiting: 8, recorded: 3, workers: [live('w2', 3)], said: ['info: workers crawl again'] },
  // leases held, nothing recorded for quietMs, said again after repeatMs
  {
    at: 4300,
    waiting: 8,
    recorded: 3,
    workers: [live('w2', 3)],
    said: ['warn: no URL recorded for a while'],
  },
  { at: 5000, waiting: 8, recorded: 3, workers: [live('w2', 3)], said: [] },
  {
    at: 6400,
    waiting: 8,
    recorded: 3,
    workers: [live('w2', 3)],
    said: ['warn: no URL recorded for a while'],
  },
  // w2 fails as w1 did (said; w1's failure is not said again), w1 restarted under its name fails again (said)
  {
    at: 6500,
    waiting: 8,
    recorded: 3,
    workers: [failed('w1', 'injected \u0000 failure'), failed('w2', 'injected \u0000 failure')],
    said: ['error: worker stopped on an error', 'warn: no worker is crawling'],
  },
  { at: 6600, waiting: 8, recorded: 4, workers: [live('w1')], said: ['info: workers crawl again'] },
  {
    at: 6700,
    waiting: 8,
    recorded: 4,
    workers: [failed('w1', 'injected \u0000 failure'), failed('w2', 'injected \u0000 failure')],
    said: ['error: worker stopped on an error', 'warn: no worker is crawling'],
  },
  // a round's end: nothing waits, nothing to say
  { at: 9000, waiting: 0, recorded: 4, workers: [], said: [] },
];

test('the coordinator says when a worker failed, when none crawls, when they return and when nothing moves', async () => {
  let now = 0;
  let scene = SCENES[0];
  const pool = {
    query: async (sql: string) =>
      sql.includes('WITH leases') ? { rows: scene.workers } : { rows: [{ n: scene.elsewhere ?? 0 }] },
  } as unknown as pg.Pool;
  const lines: { level: number; msg: string; error?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const clock = { now: () => now, sleep: async () => {} };
  const watch = new CrawlWatch(pool, 'c', clock, logger, TIMES);
  const LEVELS: Record<number, string> = { 30: 'info', 40: 'warn', 50: 'error' };
  for (scene of SCENES) {
    now = scene.at;
    const from = lines.length;
    const workers = await watch.look({ ...scene, round: 1 });
    assert.equal(workers, scene.workers.filter((w) => w.live).length, `at ${scene.at}`);
    const said = lines.slice(from).map((l) => `${LEVELS[l.level]}: ${l.msg}`);
    assert.deepEqual(
      said.map((s, i) => (scene.said[i] && s.startsWith(scene.said[i]) ? scene.said[i] : s)),
      scene.said,
      `at ${scene.at}`,
    );
  }
  // the failure's message came back as the worker left it, NUL and all
  assert.ok(lines.some((l) => l.error === 'injected \u0000 failure'));
});
