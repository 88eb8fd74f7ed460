import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScheduleEntry } from '../../pipeline/core/index.ts';
import {
  emptyHistory,
  estimateCrawl,
  type HistoryStats,
  type PldProfile,
  planSlot,
} from '../../pipeline/schedule/index.ts';

const profile = (crawlDelayMs: number | null): PldProfile => ({
  pld: 'example.org',
  samples: [{ requests: 1, retries: 0, retryAfterMs: null, requestMs: 100, timedOut: false }],
  crawlDelayMs,
  meanDurationMs: 100,
});
const history = (p: PldProfile): HistoryStats => ({
  ...emptyHistory(),
  plds: new Map([[p.pld, p]]),
});
const urls = ['http://a.example.org/1', 'http://a.example.org/2', 'http://a.example.org/3'];
const config = {
  concurrency: 4,
  delayMs: 100,
  crawlDelayCapMs: 1000,
  timeoutMs: 5000,
  policy: 'longest-first' as const,
};

test('three documents on one host: robots.txt + delay + first (0-300), then 400-500, 600-700', () => {
  const e = estimateCrawl({ urls, stats: history(profile(null)), config });
  assert.deepEqual([e.p10Ms, e.p50Ms, e.p90Ms], [700, 700, 700]);
  assert.equal(e.bounding[0].pld, 'example.org');
  assert.equal(e.unknownPlds, 0);
});

test('a Crawl-delay seen in history is honoured up to the cap, robots.txt included: 0-700, 1200-1300, 1800-1900; capped at 200: 0-400, 600-700, 900-1000', () => {
  assert.equal(estimateCrawl({ urls, stats: history(profile(500)), config }).p50Ms, 1900);
  assert.equal(
    estimateCrawl({ urls, stats: history(profile(500)), config: { ...config, crawlDelayCapMs: 200 } }).p50Ms,
    1000,
  );
});

test('no history: the default request of 200 ms (robots.txt 200, delay 100, document 200)', () => {
  const e = estimateCrawl({ urls: [urls[0]], stats: emptyHistory(), config });
  assert.equal(e.p50Ms, 500);
  assert.equal(e.unknownPlds, 1);
});

test('the baseline sits beside ours: 3 documents, c = d = 100 ms, one thread', () => {
  const e = estimateCrawl({ urls, stats: history(profile(null)), config });
  assert.equal(e.baseline.makespanMs, 300);
});

test('plan: the most urgent prefix that fits (n documents take 300 + (n - 1) x 200 ms); the rest is postponed', () => {
  const entry = (n: number, level: number, nextDue: number): ScheduleEntry => ({
    url: urls[0].replace('/1', `/${n}`),
    level,
    intervalMs: 0,
    nextDue,
    strategy: 'dyldo',
    state: '{}',
  });
  const schedule = [entry(1, 2, 50), entry(2, 0, 10), entry(3, 1, 20), entry(4, 1, 30), entry(5, 4, 5000)];
  const plan = planSlot({
    schedule,
    slotStart: 100,
    budgetMs: 750,
    stats: history(profile(null)),
    config,
  });
  // entry 5 (next due 5 s) is due too: dueUrls allows a minute of slack; level 4 makes it the most urgent
  assert.deepEqual(
    plan.fit.map((e) => e.url.at(-1)),
    ['5', '1', '3'],
  );
  assert.deepEqual(
    plan.postponed.map((e) => e.url.at(-1)),
    ['4', '2'],
  );
  assert.equal(plan.estimate?.p90Ms, 700);
  assert.deepEqual(plan.byLevel, [
    { level: 4, due: 1, fit: 1 },
    { level: 2, due: 1, fit: 1 },
    { level: 1, due: 2, fit: 1 },
    { level: 0, due: 1, fit: 0 },
  ]);
});
