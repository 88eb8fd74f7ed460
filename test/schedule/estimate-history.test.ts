import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { manualClock } from '../../pipeline/core/index.ts';
import { readHistoryStats } from '../../pipeline/schedule/index.ts';
import { publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { record, source } from '../snapshot/sample-crawl.ts';

const T0 = Date.UTC(2026, 0, 5);
const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function publish(root: string, at: number, fetches: [string, number, number][]): Promise<void> {
  await publishSnapshot({
    root,
    name: snapshotName('interval', at),
    kind: 'interval',
    startedAt: at,
    endedAt: at + 60_000,
    config: { delayMs: 100, crawlDelayCapMs: 2000, maxAttempts: 2, concurrency: 4 },
    documents: source(
      fetches.map(([url, offset, durationMs]) => ({
        record: record(url, at + offset, { durationMs }),
        statements: [],
      })),
    ),
    clock: manualClock(at + 120_000),
  });
}

test("a Crawl-delay shown by one crawl is taken out of another crawl's fetches too small to show it", async () => {
  const root = await mkdtemp(join(tmpdir(), 'estimate-history-'));
  roots.push(root);
  // crawl 1: five fetches of slow.org, each 50 ms, 1 s apart: a Crawl-delay of 950 ms shows
  await publish(
    root,
    T0,
    [0, 1, 2, 3, 4].map((i) => [`http://slow.org/${i}`, i * 1000, 50]),
  );
  // crawl 2: two fetches only; the first read robots.txt (50 ms), waited the Crawl-delay, then 50 ms
  await publish(root, T0 + 3_600_000, [
    ['http://slow.org/a', 0, 1050],
    ['http://slow.org/b', 2000, 50],
  ]);
  const stats = await readHistoryStats(root);
  assert.equal(stats.plds.get('slow.org')?.crawlDelayMs, 950);
  // (1050 - 950) / 2 requests; read with our 100 ms delay alone it would be 475 ms
  assert.equal(stats.urls.get('http://slow.org/a')?.requestMs, 50);
});
