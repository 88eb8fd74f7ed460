import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BodyCost, MemoryBudget } from '../../pipeline/core/index.ts';

/** A body costs its bytes, whatever its type. */
const bytes: BodyCost = (_type, n) => n;

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test('charges that fit are granted at once; one that does not waits until a lease gives its bytes back', async () => {
  const budget = new MemoryBudget(100);
  const a = budget.lease(bytes);
  const b = budget.lease(bytes);
  a.expect(null, 60);
  b.expect(null, 60);
  await a.charge(60);
  await b.charge(30);
  const more = b.charge(50);
  assert.equal(await settled(more), false, 'a charge past the limit was granted');
  assert.equal(budget.saturated, true);
  a.release();
  assert.equal(await settled(more), true);
  assert.deepEqual([budget.used, budget.peak, budget.overdrawn], [50, 90, 0]);
});

test('a body alone is read past the limit; every other waits until it is done', async () => {
  const budget = new MemoryBudget(100);
  const big = budget.lease(bytes);
  const small = budget.lease(bytes);
  big.expect(null, 250);
  small.expect(null, 10);
  await big.charge(250);
  const waiting = small.charge(10);
  assert.equal(await settled(waiting), false);
  big.release();
  assert.equal(await settled(waiting), true);
  assert.deepEqual([budget.used, budget.peak, budget.overdrawn], [10, 250, 0]);
});

test('two bodies whose claims do not fit together are not both started: the second waits, both finish', async () => {
  // without the banker's rule, a at 40 and b at 50 would each wait for room the other holds
  const budget = new MemoryBudget(100);
  const a = budget.lease(bytes);
  const b = budget.lease(bytes);
  a.expect(null, 80);
  b.expect(null, 80);
  await a.charge(40);
  const bFirst = b.charge(50);
  assert.equal(await settled(bFirst), false, 'b began although a and b could then both get stuck');
  await a.charge(80);
  a.release();
  await bFirst;
  await b.charge(80);
  b.release();
  assert.deepEqual([budget.used, budget.peak, budget.overdrawn], [0, 80, 0]);
});

test('a claim from Content-Length lets bodies share the budget up to the limit', async () => {
  const budget = new MemoryBudget(100);
  const leases = [0, 1, 2, 3].map(() => budget.lease(bytes));
  for (const lease of leases) lease.expect(null, 25);
  for (let n = 5; n <= 25; n += 5) await Promise.all(leases.map((lease) => lease.charge(n)));
  assert.deepEqual([budget.used, budget.waiting], [100, 0]);
});

test('a cost per type: the claim and the charges are the cost of the bytes', async () => {
  const budget = new MemoryBudget(1000);
  const lease = budget.lease((type, n) => (type === 'text/html' ? 4 * n : n));
  lease.expect('text/html', 100);
  await lease.charge(50);
  assert.equal(lease.charged, 200);
  lease.expect('text/turtle', 100);
  assert.equal(lease.charged, 0, 'a new body gives back what the earlier one was charged');
  await lease.charge(50);
  lease.settle('text/turtle', 50);
  assert.equal(lease.charged, 50, 'settling a body charged already charges nothing more');
  lease.drop();
  lease.settle('text/html', 10);
  assert.equal(budget.used, 40);
});

test('an aborted wait rejects with the reason and leaves the queue', async () => {
  const budget = new MemoryBudget(100);
  const a = budget.lease(bytes);
  const b = budget.lease(bytes);
  a.expect(null, 100);
  b.expect(null, 100);
  await a.charge(90);
  const stop = new AbortController();
  const waiting = b.charge(20, stop.signal);
  stop.abort(new Error('stopped'));
  await assert.rejects(waiting, /stopped/);
  assert.deepEqual([budget.waiting, budget.saturated], [0, false]);
});

test('when every lease holding bytes waits, the oldest waiter goes on past the limit (counted)', async () => {
  // claims that lie (bodies bigger than they said) are the only way to get there
  const budget = new MemoryBudget(100);
  const a = budget.lease(bytes);
  const b = budget.lease(bytes);
  a.expect(null, 50);
  b.expect(null, 40);
  await a.charge(50);
  await b.charge(40);
  const aMore = a.charge(70);
  assert.equal(await settled(aMore), false);
  await b.charge(50);
  const bMore = b.charge(60);
  assert.equal(await settled(aMore), true, 'both waited for ever');
  assert.equal(await settled(bMore), false);
  assert.equal(budget.overdrawn, 1);
  a.release();
  assert.equal(await settled(bMore), true);
});

test('a document waiting outside the budget (a JSON-LD context) does not hold up a waiting body for ever', async () => {
  const budget = new MemoryBudget(100);
  const reading = budget.lease(bytes);
  const fetching = budget.lease(bytes);
  reading.expect(null, 90);
  fetching.expect(null, 50);
  await reading.charge(90);
  const body = fetching.charge(50);
  assert.equal(await settled(body), false);
  // the context's request waits behind the fetch whose body waits for room
  await budget.aside(() => body);
  assert.equal(budget.overdrawn, 1);
});
