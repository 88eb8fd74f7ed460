import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankReady } from '../../pipeline/crawl/policy.ts';

const ready = () => [
  { pld: 'small.org', queued: 2, delayMs: 1000, lastServed: 1 },
  { pld: 'big.org', queued: 500, delayMs: 1000, lastServed: 9 },
  { pld: 'slow.org', queued: 100, delayMs: 10_000, lastServed: 5 },
];

test('longest-first serves the PLD with the most remaining time (queue x delay) first', () => {
  assert.deepEqual(
    rankReady('longest-first', ready()).map((r) => r.pld),
    ['slow.org', 'big.org', 'small.org'],
  );
});

test('round-robin serves the PLD served longest ago first', () => {
  assert.deepEqual(
    rankReady('round-robin', ready()).map((r) => r.pld),
    ['small.org', 'slow.org', 'big.org'],
  );
});
