import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Frontier } from '../../pipeline/crawl/frontier.ts';
import { PldQueue } from '../../pipeline/crawl/pld-queue.ts';

test('a PLD queue serves most in-links first, ties by URL, and follows rank bumps', () => {
  const q = new PldQueue();
  q.put('http://a.org/c', 1);
  q.put('http://a.org/b', 1);
  q.put('http://a.org/a', 3);
  q.put('http://a.org/c', 5);
  assert.equal(q.size, 3);
  assert.deepEqual(
    [q.take(), q.take(), q.take(), q.take()],
    ['http://a.org/c', 'http://a.org/a', 'http://a.org/b', undefined],
  );
});

test('a removed URL is never served', () => {
  const q = new PldQueue();
  q.put('http://a.org/x', 2);
  q.put('http://a.org/y', 1);
  assert.equal(q.remove('http://a.org/x'), true);
  assert.equal(q.take(), 'http://a.org/y');
  assert.equal(q.take(), undefined);
});

test('the frontier groups URLs per PLD and hands them out best first', () => {
  const f = new Frontier();
  f.assign(
    [
      ['http://a.example.org/1', 0],
      ['http://b.example.org/2', 0],
      ['http://other.net/3', 0],
    ],
    0,
  );
  assert.deepEqual(f.activePlds().sort(), ['example.org', 'other.net']);
  assert.equal(f.queuedFor('example.org'), 2);
  f.discover('http://b.example.org/2', 0);
  assert.equal(f.take('example.org')?.url, 'http://b.example.org/2');
  assert.equal(f.queued, 2);
});

test('discovered links wait for the next round; depth and budget choose which join', () => {
  const f = new Frontier();
  f.assign([['http://s.org/seed', 0]], 0);
  f.take('s.org');
  f.discover('http://x.org/popular', 0);
  f.discover('http://y.org/rare', 0);
  f.discover('http://x.org/popular', 0);
  assert.equal(f.queued, 0);
  assert.equal(f.pending, 2);
  const joined = f.startRound(1, 2, 1);
  assert.deepEqual(joined, [['http://x.org/popular', 1]]);
  assert.equal(f.pending, 1);
  assert.deepEqual(f.startRound(2, 0, 10), [], 'depth 1 exceeds maxDepth 0');
});

test('a known URL is not queued twice, and a redirect target counts as fetched', () => {
  const f = new Frontier();
  f.assign([['http://s.org/a', 0]], 0);
  f.discover('http://s.org/a', 0);
  f.markSeen('http://s.org/data/a', 1);
  f.discover('http://s.org/data/a', 0);
  assert.equal(f.startRound(1, 5, 10).length, 0);
  assert.equal(f.queued, 1);
});

test('a redirect target not in a round yet is fetched elsewhere, whichever came first; one queued keeps its place', () => {
  const f = new Frontier();
  f.assign(
    [
      ['http://s.org/a', 0],
      ['http://t.org/queued', 0],
    ],
    0,
  );
  f.take('s.org');
  // linked, then reached by a redirect in the same round; and the other way round
  f.discover('http://t.org/linked-first', 0);
  f.markSeen('http://t.org/linked-first', 0);
  f.markSeen('http://t.org/redirected-first', 0);
  f.discover('http://t.org/redirected-first', 0);
  f.markSeen('http://t.org/queued', 0);
  assert.equal(f.queued, 1);
  assert.deepEqual([...f.candidatePlds(5)], []);
  assert.deepEqual(f.startRound(1, 5, 10), []);
  assert.equal(f.take('t.org')?.url, 'http://t.org/queued');
});

test('markDone removes a queued URL (journal replay)', () => {
  const f = new Frontier();
  f.assign(
    [
      ['http://s.org/a', 0],
      ['http://s.org/b', 0],
    ],
    0,
  );
  f.markDone('http://s.org/a');
  assert.equal(f.queued, 1);
  assert.equal(f.take('s.org')?.url, 'http://s.org/b');
});

test('a million-URL frontier fits in well under 1 GB', () => {
  const f = new Frontier();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 1_000_000; i++)
    f.discover(`http://host${i % 5000}.example${i % 997}.org/resource/${i}`, 0);
  f.startRound(1, 5, 1_000_000);
  const used = process.memoryUsage().heapUsed - before;
  assert.equal(f.queued, 1_000_000);
  assert.ok(used < 1024 ** 3, `frontier used ${Math.round(used / 1024 ** 2)} MiB`);
});
