import assert from 'node:assert/strict';
import { test } from 'node:test';
import canonize from 'rdf-canonize';
import { documentState, eventsUntil, versionOf } from '../../pipeline/simweb/document-state.ts';
import { documentGraph } from '../../pipeline/simweb/graph.ts';
import { CHANGE_BUCKETS } from '../../pipeline/simweb/index.ts';
import { generateWeb } from '../../pipeline/simweb/web-shape.ts';

const DAY = 86_400_000;
const YEAR = 365 * DAY;
const web = generateWeb({ seed: 11, docs: 30_000, plds: 300, horizonMs: YEAR });
const epoch = web.options.epochMs;

test('over a simulated year each bucket changes at its mean interval', () => {
  const perBucket = new Map<string, { exposure: number; changes: number; docs: number }>();
  const kinds = new Set<string>();
  for (let d = 0; d < web.docCount; d++) {
    const s = documentState(web, d);
    if (s.process.kind === 'never') continue;
    kinds.add(s.process.kind);
    const from = Math.max(epoch, s.life.bornAt ?? epoch);
    const to = Math.min(epoch + YEAR, s.life.diedAt ?? Number.POSITIVE_INFINITY);
    const b = perBucket.get(s.process.bucket) ?? { exposure: 0, changes: 0, docs: 0 };
    b.exposure += Math.max(0, to - from);
    b.changes += eventsUntil(web, s, epoch + YEAR).length;
    b.docs++;
    perBucket.set(s.process.bucket, b);
  }
  assert.deepEqual([...kinds].sort(), ['bursty', 'poisson', 'weekly']);
  for (const bucket of CHANGE_BUCKETS.filter((b) => b.name !== 'never')) {
    const b = perBucket.get(bucket.name)!;
    const meanDays = b.exposure / b.changes / DAY;
    assert.ok(
      meanDays > bucket.minDays * 0.7 && meanDays < bucket.maxDays * 1.3,
      `${bucket.name}: ${meanDays.toFixed(1)} d over ${b.docs} docs`,
    );
  }
});

async function canonical(d: number, t: number): Promise<string> {
  const s = documentState(web, d);
  const quads = documentGraph(web, s, versionOf(web, s, t));
  return canonize.canonize(quads as never, { algorithm: 'RDFC-1.0' });
}

test('cosmetic changes keep the graph; real and timestamp changes alter it', async () => {
  const seen = { real: 0, timestamp: 0, cosmetic: 0 };
  for (let d = 3; d < web.docCount && Math.min(seen.real, seen.timestamp, seen.cosmetic) < 5; d += 7) {
    const s = documentState(web, d);
    const events = eventsUntil(web, s, epoch + YEAR);
    for (const [i, e] of events.entries()) {
      if (seen[e.kind] >= 5 || (i > 0 && events[i - 1].at === e.at)) continue;
      const before = await canonical(d, e.at - 1);
      const afterChange = await canonical(d, e.at);
      assert.equal(
        before === afterChange,
        e.kind === 'cosmetic',
        `${d} ${e.kind} at ${new Date(e.at).toISOString()}`,
      );
      seen[e.kind]++;
    }
  }
  assert.ok(Math.min(seen.real, seen.timestamp, seen.cosmetic) >= 5, JSON.stringify(seen));
});

test('some documents appear and some disappear within the span', () => {
  let born = 0;
  let died = 0;
  for (let d = 0; d < 5000; d++) {
    const s = documentState(web, d);
    if (s.life.bornAt !== null) born++;
    if (s.life.diedAt !== null) died++;
  }
  assert.ok(born > 100 && died > 100, `${born} born, ${died} died`);
});
