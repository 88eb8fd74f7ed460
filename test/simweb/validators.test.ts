import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type SimWeb,
  startSimWeb,
  TRUTH_ACCEPT,
  type TruthRecord,
  type ValidatorHabit,
} from '../../pipeline/simweb/index.ts';
import { simGet } from './sim-client.ts';

const T0 = Date.UTC(2026, 2, 1);

let sim: SimWeb;
let habits: Map<string, ValidatorHabit>;
before(async () => {
  sim = await startSimWeb({ seed: 5, docs: 1500, plds: 80, latencyScale: 0, now: T0 });
  habits = new Map(sim.pldHabits().map((h) => [h.pld, h.validators]));
});
after(() => sim.close());

/** The final URL of a live RDF document of a PLD with `habit` whose graph changes after T0. */
function changingDocument(habit: ValidatorHabit): { url: string; change: number } {
  const record = sim
    .truth(T0)
    .find(
      (r: TruthRecord) =>
        habits.get(r.pld) === habit &&
        r.kind === 'document' &&
        r.rdf &&
        r.diedAt === null &&
        r.changes.some((c) => c.graphChanged && Date.parse(c.at) > T0),
    );
  assert.ok(record, `a changing document on a ${habit} PLD`);
  const change = Date.parse(record.changes.find((c) => c.graphChanged && Date.parse(c.at) > T0)!.at);
  return { url: record.finalUrl!, change };
}

const get = (url: string, headers: Record<string, string | undefined> = {}) =>
  simGet(sim, url, { accept: TRUTH_ACCEPT, ...(headers as Record<string, string>) });

test('half of the data PLDs send validators; one answers 304 regardless, one has a fickle ETag; the truth says which', () => {
  const s = sim.summary();
  const data = sim.web.plds.filter((p) => p.kind === 'data');
  const sending = data.filter((p) => p.validators !== 'none').length;
  assert.ok(sending > 0.3 * data.length && sending < 0.7 * data.length, `${sending} of ${data.length}`);
  assert.equal(s.validatorPlds['stale-304'], 1);
  assert.equal(s.validatorPlds['fickle-etag'], 1);
  assert.equal(habits.get(s.stale304Pld!), 'stale-304');
  assert.equal(habits.get(s.fickleEtagPld!), 'fickle-etag');
  assert.equal(s.validatorPlds.none + s.validatorPlds.correct + 2, sim.web.plds.length);
});

test('a correct PLD: ETag and Last-Modified follow the content; 304 while it holds, 200 once it changed', async () => {
  const { url, change } = changingDocument('correct');
  sim.setClock(T0);
  const first = await get(url);
  assert.equal(first.status, 200);
  const { etag, 'last-modified': lastModified } = first.headers;
  assert.match(etag, /^"[0-9a-f]+"$/);
  assert.ok(Date.parse(lastModified) <= T0);
  for (const conditions of [
    { 'if-none-match': etag },
    { 'if-none-match': `W/${etag}` },
    { 'if-none-match': `"nope", ${etag}` },
    { 'if-none-match': '*' },
    { 'if-modified-since': lastModified },
    { 'if-modified-since': new Date(T0).toUTCString() },
  ]) {
    const res = await get(url, conditions);
    assert.equal(res.status, 304, JSON.stringify(conditions));
    assert.equal(res.body.length, 0);
    assert.equal(res.headers.etag, etag);
  }
  // older than the last change, or a different tag (If-None-Match wins over If-Modified-Since): full answer
  const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
  assert.equal((await get(url, { 'if-modified-since': older })).status, 200);
  assert.equal(
    (await get(url, { 'if-none-match': '"nope"', 'if-modified-since': lastModified })).status,
    200,
  );
  // an unconditional request is answered exactly as before
  const again = await get(url);
  const { date: _, ...firstHeaders } = first.headers;
  const { date: __, ...againHeaders } = again.headers;
  assert.deepEqual([again.status, againHeaders, again.body], [200, firstHeaders, first.body]);

  sim.setClock(change + 1);
  const changed = await get(url, { 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.etag, etag);
  assert.notDeepEqual(changed.body, first.body);
  assert.equal((await get(url, { 'if-modified-since': lastModified })).status, 200);
  assert.equal((await get(url, { 'if-none-match': changed.headers.etag })).status, 304);
});

test('a PLD without validators sends none and answers every conditional GET in full', async () => {
  const { url } = changingDocument('none');
  sim.setClock(T0);
  const res = await get(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.etag, undefined);
  assert.equal(res.headers['last-modified'], undefined);
  const conditional = await get(url, {
    'if-none-match': '*',
    'if-modified-since': new Date(T0).toUTCString(),
  });
  assert.equal(conditional.status, 200);
  assert.deepEqual(conditional.body, res.body);
});

test('the stale-304 PLD answers 304 to a conditional GET even after the content changed', async () => {
  const { url, change } = changingDocument('stale-304');
  sim.setClock(T0);
  const first = await get(url);
  assert.equal((await get(url, { 'if-none-match': first.headers.etag })).status, 304);
  sim.setClock(change + 1);
  const full = await get(url);
  assert.notDeepEqual(full.body, first.body);
  for (const conditions of [
    { 'if-none-match': first.headers.etag },
    { 'if-modified-since': first.headers['last-modified'] },
  ]) {
    const res = await get(url, conditions);
    assert.equal(res.status, 304, JSON.stringify(conditions));
    assert.equal(res.body.length, 0);
  }
});

test('the fickle-etag PLD sends new validators at every moment and never answers 304', async () => {
  const { url } = changingDocument('fickle-etag');
  sim.setClock(T0);
  const first = await get(url);
  sim.setClock(T0 + 1000);
  const second = await get(url);
  assert.deepEqual(second.body, first.body);
  assert.notEqual(second.headers.etag, first.headers.etag);
  assert.notEqual(second.headers['last-modified'], first.headers['last-modified']);
  for (const conditions of [
    { 'if-none-match': second.headers.etag },
    { 'if-modified-since': second.headers['last-modified'] },
  ]) {
    assert.equal((await get(url, conditions)).status, 200, JSON.stringify(conditions));
  }
});
