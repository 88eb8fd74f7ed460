/**
 * The re-visit policy's trust in a PLD's 304s (its first 304 checked with an unconditional
 * request, a PLD that lied distrusted) moves with the PLD's lease: workers that hand PLDs over to
 * each other in the middle of the re-visits make the requests of one process, not one check more
 * per new holder. Workers crawl one at a time with one slot; each is stopped at a URL boundary
 * after a 304 (its clock never ends the politeness wait before its next request, so that request
 * is never sent), and the next one takes its PLD over: where that happens depends on no timing
 * that the verdict reads.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  type Clock,
  type CrawlConfig,
  clockStartingAt,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import { coordinatedCrawl, runWorker } from '../../pipeline/distributed/index.ts';
import { runWeeklySnapshot, type WeeklyOutcome } from '../../pipeline/observe/index.ts';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { distributedConfig, freshRoot, oneProcessWeek, type WeekRun } from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
/** The re-visiting week's politeness delay: the gate's waits before a request are at most this long. */
const DELAY = 150;
/** A frozen politeness wait ends after this long if the stopped worker does not end it first. */
const FROZEN_MS = 30_000;
let sim: SimWeb;
let pg: TestPostgres;
let week: WeekRun;
/** The snapshots folder holding the one-process first week (each second week runs on a copy). */
let firstWeek: string;

before(async () => {
  pg = await startPostgres();
  sim = await startSimWeb({ seed: 11, docs: 400, plds: 30, latencyScale: 0, faults: 1, now: W0 });
  week = {
    kernel: rdfDocuments(sim, W0).slice(0, 60),
    at: W0,
    adaptiveRounds: 0,
    config: distributedConfig(sim),
  };
  firstWeek = freshRoot('trust-first-');
  assert.equal((await oneProcessWeek(sim, firstWeek, week)).status, 'published');
});

after(async () => {
  await sim?.close();
  await pg?.stop();
});

function copyOfFirstWeek(prefix: string): string {
  const root = freshRoot(prefix);
  cpSync(firstWeek, root, { recursive: true });
  return root;
}

/** The server's answers since the log was cleared, per status: `status xN` (a check is one more 200). */
function answers(): string[] {
  const counts = new Map<number | null, number>();
  for (const { status } of sim.requestLog()) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status} x${n}`).sort();
}

/**
 * The system clock for a worker that `stop` stops at a URL boundary after a 304: once the server
 * answered a 304 since the last hand-over, the first politeness wait that follows a final answer
 * (not a 304, which a check may follow, nor a redirect) ends only by the worker stopping.
 * Only one worker crawls at a time, with one slot, so the server's log is its own.
 */
function handOverClock(handOvers: number[], stop: () => void): Clock {
  return {
    now: () => systemClock.now(),
    sleep(ms, signal) {
      const log = sim.requestLog();
      const last = log.at(-1);
      const since = handOvers.at(-1) ?? 0;
      const final = last?.status != null && last.status !== 304 && (last.status < 300 || last.status >= 400);
      if (ms > 0 && ms <= DELAY && final && log.some((e) => e.seq > since && e.status === 304)) {
        handOvers.push(last.seq);
        stop();
        // the worker stopping ends the wait; FROZEN_MS only keeps a wait nothing ends from hanging the test
        return systemClock.sleep(FROZEN_MS, signal);
      }
      return systemClock.sleep(ms, signal);
    },
  };
}

test("a PLD's 304 trust moves with its lease: workers handing PLDs over make the one-process requests", async () => {
  const config: CrawlConfig = { ...week.config, delayMs: DELAY, concurrency: 1 };
  const second = { ...week, at: W0 + WEEK, config };
  sim.clearRequestLog();
  assert.equal((await oneProcessWeek(sim, copyOfFirstWeek('trust-one-'), second)).status, 'published');
  const reference = answers();
  assert.ok(
    reference.some((line) => line.startsWith('304 ')),
    `${reference}`,
  );
  const url = await pg.database('trust');
  sim.setClock(second.at);
  sim.clearRequestLog();
  let ended = false;
  const snapshot: Promise<WeeklyOutcome> = runWeeklySnapshot({
    root: copyOfFirstWeek('trust-coordinated-'),
    config,
    logger: silentLogger,
    clock: clockStartingAt(second.at),
    kernel: second.kernel,
    adaptiveRounds: second.adaptiveRounds,
    crawl: coordinatedCrawl(url),
  }).finally(() => {
    ended = true;
  });
  const handOvers: number[] = [];
  // one worker at a time, two names in turn, each a new process as far as its 304 trust goes
  for (let turn = 0; !ended; turn++) {
    const stop = new AbortController();
    snapshot.then(
      () => stop.abort(),
      () => stop.abort(),
    );
    await runWorker({
      coordinator: url,
      id: `worker-${turn % 2}`,
      leaseMs: 5000,
      clock: handOverClock(handOvers, () => stop.abort()),
      logger: silentLogger,
      signal: stop.signal,
    });
  }
  assert.equal((await snapshot).status, 'published');
  assert.ok(handOvers.length > 1, 'PLDs were handed over after 304s');
  // a new holder that checked its first 304 of a PLD again answered one more 200 (one process: not)
  assert.deepEqual(answers(), reference);
});
