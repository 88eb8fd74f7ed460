import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PolicyName } from '../../pipeline/core/index.ts';
import { fetchTime, type SimJob, simulateCrawl } from '../../pipeline/schedule/index.ts';

function job(pld: string, fetchMs: number[], delayMs: number, extra: Partial<SimJob> = {}): SimJob {
  return { pld, delayMs, fetchMs, rounds: fetchMs.map(() => 0), sent: fetchMs.map(() => true), ...extra };
}
const run = (jobs: SimJob[], concurrency: number, policy: PolicyName = 'longest-first', cpuMs = 0) =>
  simulateCrawl(jobs, { concurrency, policy, cpuMs }).makespanMs;

test('one PLD: documents 100 ms apart by its delay, counted from each answer: 0-100, 200-300, 400-500', () => {
  assert.equal(run([job('a', [100, 100, 100], 100)], 4), 500);
});

test('slot-bound: four one-document PLDs on two slots take two rounds of 100 ms', () => {
  assert.equal(
    run(
      ['a', 'b', 'c', 'd'].map((p) => job(p, [100], 100)),
      2,
    ),
    200,
  );
});

test('longest-first serves the long queue first (650 ms); round-robin by name lets it idle (700 ms)', () => {
  const jobs = () => [job('a', [100], 150), job('b', [100, 100, 100], 150), job('c', [100], 150)];
  assert.equal(run(jobs(), 1, 'longest-first'), 650);
  assert.equal(run(jobs(), 1, 'round-robin'), 700);
});

test('a document that sent no request (robots refusal) leaves its PLD ready at once', () => {
  assert.equal(run([job('a', [0, 100], 1000, { sent: [false, true] })], 1), 100);
});

test('processing on the one event loop holds the slot and the PLD: two PLDs, 10 ms each, queue', () => {
  assert.equal(run([job('a', [100, 100, 100], 100)], 2, 'longest-first', 10), 510);
  assert.equal(
    run([job('a', [100, 100, 100], 100), job('b', [100, 100, 100], 100)], 2, 'longest-first', 10),
    520,
  );
});

test('rounds: round 1 starts when round 0 is done, and its PLD still waits for its delay', () => {
  const jobs = [job('a', [100, 100], 100, { rounds: [0, 1] }), job('b', [100], 100)];
  assert.equal(run(jobs, 2), 300);
});

test('fetch time: requests on the wire, the delay between them, a retry waits for the longer of delay and penalty', () => {
  const sample = { requests: 2, retries: 1, retryAfterMs: null, requestMs: 50, timedOut: false };
  const p = { crawlDelayCapMs: 1000, timeoutMs: 3000 };
  assert.equal(fetchTime(sample, 100, p), 2 * 50 + 200); // penalty without Retry-After: 2 x delay
  assert.equal(fetchTime({ ...sample, retryAfterMs: 5000 }, 100, p), 2 * 50 + 1000); // capped
  assert.equal(fetchTime({ ...sample, retries: 0, requests: 3 }, 100, p), 3 * 50 + 2 * 100); // two redirect hops
  assert.equal(fetchTime({ ...sample, requests: 0, retries: 0 }, 100, p), 0);
  // timed out: each request costs the timeout of the crawl to come, not the one history ran with
  assert.equal(fetchTime({ ...sample, timedOut: true, requestMs: 6000 }, 100, p), 2 * 3000 + 200);
});
