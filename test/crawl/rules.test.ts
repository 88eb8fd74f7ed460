import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RoundEndRule } from '../../pipeline/core/index.ts';
import { endsRoundEarly, type RoundView } from '../../pipeline/crawl/index.ts';
import { fetchTime } from '../../pipeline/schedule/estimate/profile.ts';
import { simulateCrawl } from '../../pipeline/schedule/estimate/simulate.ts';
import { retryAfterMs, retryWaitsMs } from '../../pipeline/web/index.ts';

const view = (over: Partial<RoundView>): RoundView => ({
  round: 1,
  maxRounds: 3,
  budgeted: false,
  active: 1,
  slots: 2,
  rule: 'observatory',
  ...over,
});

/** [case, view, whether the next round brings new PLDs, expected] */
const ROUND_CASES: Array<[string, RoundView, boolean, boolean]> = [
  ['fewer active PLDs than slots, new PLDs next round', view({}), true, true],
  ['fewer active PLDs than slots, nothing new next round', view({}), false, false],
  ['the seeds run out (round 0)', view({ round: 0 }), true, false],
  ['the last round', view({ round: 2 }), true, false],
  ['a crawl with a budget runs each round out', view({ budgeted: true }), true, false],
  ['as many active PLDs as slots', view({ active: 2 }), true, false],
  ['no slot yet (no live worker)', view({ active: 0, slots: 0 }), true, false],
  ['ldspider: whatever the next round brings', view({ rule: 'ldspider' as RoundEndRule }), false, true],
];

for (const [name, v, incoming, expected] of ROUND_CASES) {
  test(`round end: ${name}`, () => {
    let looked = false;
    const decided = endsRoundEarly(v, () => {
      looked = true;
      return incoming;
    });
    assert.equal(decided, expected);
    // the costly look at the candidates only when the cheap conditions hold, never under ldspider
    const cheapHold = v.round >= 1 && v.round + 1 < v.maxRounds && !v.budgeted && v.active < v.slots;
    assert.equal(looked, cheapHold && v.rule === 'observatory');
  });
}

test('round end: a loop that may not look now (once a second) is not answered yes', () => {
  assert.equal(
    endsRoundEarly(
      view({}),
      () => true,
      () => false,
    ),
    false,
  );
});

test('round end in the estimator: the rule pulls in the next round while a slot idles, as the crawl does', () => {
  // A has round-1 work for 10 s; B has its one document in round 2. Two slots: in round 1 only A is
  // active (1 < 2) and round 2 brings B, so B is crawled beside A rather than after it.
  const jobs = [
    {
      pld: 'a.example',
      delayMs: 1000,
      rounds: [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      fetchMs: Array(11).fill(10),
      sent: Array(11).fill(true),
    },
    { pld: 'b.example', delayMs: 1000, rounds: [0, 2], fetchMs: [10, 5000], sent: [true, true] },
  ];
  const result = simulateCrawl(jobs, { concurrency: 2, policy: 'longest-first' });
  assert.ok(
    result.finishMs[1] < result.finishMs[0],
    `B finished at ${result.finishMs[1]}, A at ${result.finishMs[0]}`,
  );
});

test('retry: Retry-After as seconds or as an HTTP-date; unreadable as none', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');
  assert.equal(retryAfterMs('120', now), 120_000);
  assert.equal(retryAfterMs('Fri, 27 Nov 2026 10:02:00 GMT', now), 120_000);
  assert.equal(retryAfterMs('Fri, 27 Nov 2026 09:00:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs(null, now), null);
});

test("retry: the estimator replays the fetch's doubling backoff, capped like a Crawl-delay", () => {
  // the fetch holds the PLD back delay x 2^attempt after failed attempt `attempt`
  assert.equal(retryWaitsMs(1, 100, null, 60_000), 200);
  assert.equal(retryWaitsMs(2, 100, null, 60_000), 200 + 400);
  assert.equal(retryWaitsMs(2, 100, null, 300), 200 + 300);
  assert.equal(retryWaitsMs(2, 100, 50, 60_000), 100 + 100, 'never sooner than the delay');
  const sample = { requests: 3, retries: 2, retryAfterMs: null, requestMs: 50, timedOut: false };
  assert.equal(fetchTime(sample, 100, { crawlDelayCapMs: 60_000, timeoutMs: 1000 }), 3 * 50 + 600);
});
