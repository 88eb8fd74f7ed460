import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../pipeline/schedule/histories/random.ts';
import {
  emptyHistory,
  type FetchSample,
  type HistoryStats,
  type PldProfile,
  pldDraws,
  poolHistory,
} from '../../pipeline/schedule/index.ts';

const fetch = (requests: number, requestMs: number, extra: Partial<FetchSample> = {}): FetchSample => ({
  requests,
  retries: 0,
  retryAfterMs: null,
  requestMs,
  timedOut: false,
  ...extra,
});
const profile = (pld: string, samples: FetchSample[]): PldProfile => ({
  pld,
  samples,
  crawlDelayMs: null,
  meanDurationMs: 0,
});
const history = (...profiles: PldProfile[]): HistoryStats => ({
  ...emptyHistory(),
  plds: new Map(profiles.map((p) => [p.pld, p])),
});

/** A well-known PLD: 100 fetches, one in ten through a 4-hop redirect chain, answer times 50 or 150 ms. */
const big = profile(
  'big.org',
  Array.from({ length: 100 }, (_, i) => fetch(i % 10 === 0 ? 5 : 1, i % 2 === 0 ? 50 : 150)),
);

function drawMany(p: PldProfile, stats: HistoryStats, n: number, own?: FetchSample): FetchSample[] {
  const pools = poolHistory(stats);
  const random = seededRandom(5);
  const out: FetchSample[] = [];
  for (let i = 0; i < n; i++) out.push(pldDraws(p, pools, random)(own));
  return out;
}

test('a PLD seen twice borrows the rare redirect chains of the pool, in proportion to how little it has seen', () => {
  const small = profile('small.org', [fetch(1, 400), fetch(1, 400)]);
  const draws = drawMany(small, history(big, small), 20_000);
  const chains = draws.filter((d) => d.requests === 5).length / draws.length;
  // pooled share 10 / (2 + 10) of the draws, a chain in one of ten of those
  assert.ok(Math.abs(chains - (10 / 12) * 0.1) < 0.01, `chain share ${chains}`);
  assert.ok(draws.every((d) => d.requests === 1 || d.requests === 5));
});

test("a 303 PLD keeps its usual hops when it borrows: the pool's plain fetch is one more hop behind its 303", () => {
  const seeOther = profile('see-other.org', [fetch(2, 100), fetch(2, 100), fetch(2, 100)]);
  const draws = drawMany(seeOther, history(big, seeOther), 5_000);
  assert.ok(draws.every((d) => d.requests === 2 || d.requests === 6));
});

test("answer times keep the PLD's scale and take the pool's spread, and a URL seen before keeps its requests", () => {
  const small = profile('small.org', [fetch(1, 400), fetch(1, 400)]);
  const draws = drawMany(small, history(big, small), 20_000);
  const ms = draws.map((d) => d.requestMs);
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  assert.ok(Math.abs(mean / 400 - 1) < 0.05, `mean ${mean}`);
  // the pool's answers are 0.5x or 1.5x their PLD's mean; this PLD's own are all 400 ms
  assert.ok(Math.min(...ms) < 300 && Math.max(...ms) > 500);
  const own = fetch(3, 999, { retries: 1 });
  for (const d of drawMany(small, history(big, small), 100, own)) {
    assert.equal(d.requests, 3);
    assert.equal(d.retries, 1);
  }
});

test('with no pool (no PLD seen five times) a PLD replays its own fetches exactly', () => {
  const small = profile('small.org', [fetch(1, 400), fetch(2, 250)]);
  const draws = drawMany(small, history(small), 1_000);
  const kinds = new Set(draws.map((d) => `${d.requests}/${d.requestMs}`));
  assert.deepEqual([...kinds].sort(), ['1/250', '1/400', '2/250', '2/400']);
});

test('a robots.txt refusal stays a refusal: nothing is borrowed for a fetch that sent no request', () => {
  const refused = profile('refused.org', [fetch(0, 30), fetch(0, 30)]);
  assert.ok(drawMany(refused, history(big, refused), 1_000).every((d) => d.requests === 0));
});

test('a slow PLD borrows the spread of slow servers, not the lag-dominated spread of fast ones', () => {
  // eight fast PLDs whose answers are 1x or 20x their mean-ish (a lag spike), eight slow ones within +-50%
  const fast = Array.from({ length: 8 }, (_, i) =>
    profile(
      `fast${i}.org`,
      Array.from({ length: 10 }, (_, k) => fetch(1, k === 0 ? 200 : 10)),
    ),
  );
  const slow = Array.from({ length: 8 }, (_, i) =>
    profile(
      `slow${i}.org`,
      Array.from({ length: 10 }, (_, k) => fetch(1, k % 2 === 0 ? 1000 : 3000)),
    ),
  );
  const thin = profile('thin.org', [fetch(1, 2500)]);
  const draws = drawMany(thin, history(...fast, ...slow, thin), 5_000).map((d) => d.requestMs);
  // the slow shapes are 0.5x and 1.5x; a fast shape would put draws near 2500 x 6.9
  assert.ok(Math.max(...draws) < 2500 * 3, `max ${Math.max(...draws)}`);
  assert.ok(Math.min(...draws) < 2500 * 0.7);
});
