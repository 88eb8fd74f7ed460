import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { documentState } from '../../pipeline/simweb/document-state.ts';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import { type SimWeb, startSimWeb, TRUTH_ACCEPT, type TruthRecord } from '../../pipeline/simweb/index.ts';
import { simGet } from './sim-client.ts';

let sim: SimWeb;
before(async () => {
  sim = await startSimWeb({ seed: 21, docs: 1500, plds: 60, latencyScale: 0 });
});
after(() => sim.close());

async function control(method: string, path: string, body?: unknown): Promise<string> {
  const res = await request(`${sim.origin}/__sim/${path}`, {
    method: method as 'GET',
    headers: { host: 'anything.example.org', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  assert.equal(res.statusCode, 200, text);
  return text;
}

test('the virtual clock is read, set and advanced through /__sim/clock and never logged', async () => {
  sim.clearRequestLog();
  assert.equal(JSON.parse(await control('GET', 'clock')).ms, sim.clock.now());
  assert.equal(
    JSON.parse(await control('POST', 'clock', { now: '2026-03-01T00:00:00Z' })).ms,
    Date.UTC(2026, 2, 1),
  );
  assert.equal(
    JSON.parse(await control('POST', 'clock', { advance: 3_600_000 })).now,
    '2026-03-01T01:00:00.000Z',
  );
  sim.setClock(Date.UTC(2026, 0, 5));
  assert.equal(sim.clock.now(), Date.UTC(2026, 0, 5));
  assert.equal(sim.requestLog().length, 0);
});

test('the request log records host, PLD, path, User-Agent and increasing start times', async () => {
  sim.clearRequestLog();
  const urls = sim.coreSeeds.slice(0, 6);
  for (const u of urls) await simGet(sim, u, { 'user-agent': 'LinkedDataObservatory/test' });
  const log = sim.requestLog();
  assert.equal(log.length, urls.length);
  for (const [i, e] of log.entries()) {
    const u = new URL(urls[i]);
    assert.equal(e.host, u.hostname);
    assert.equal(e.path, u.pathname + u.search);
    assert.equal(e.userAgent, 'LinkedDataObservatory/test');
    assert.ok(e.pld.length > 0 && u.hostname.endsWith(e.pld));
    if (i > 0) assert.ok(e.startedAt >= log[i - 1].startedAt);
  }
  // sub-millisecond resolution, for politeness gaps measured at the server
  assert.ok(log.some((e) => !Number.isInteger(e.startedAt)));
  const lines = (await control('GET', 'log?since=2')).trim().split('\n');
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).seq),
    log.slice(2).map((e) => e.seq),
  );
});

test('what the server answers agrees with the ground truth', async () => {
  const t = Date.UTC(2026, 6, 1);
  sim.setClock(t);
  const truth = sim.truth().filter((r) => r.kind === 'document');
  const lines = (await control('GET', `truth?at=${new Date(t).toISOString()}`)).trim().split('\n');
  assert.equal(lines.length, sim.truth().length);
  const sample = truth.filter((r, i) => i % 7 === 0 && r.error !== 'timeout' && r.error !== 'reset');
  for (const r of sample) {
    let url = r.uri;
    let res = await simGet(sim, url, { accept: TRUTH_ACCEPT });
    for (let hops = 0; res.status >= 300 && res.status < 400 && res.headers.location && hops < 6; hops++) {
      url = new URL(res.headers.location, url).href;
      res = await simGet(sim, url, { accept: TRUTH_ACCEPT });
    }
    if (r.error === 'redirect_loop' || r.error === 'redirect_limit') continue;
    assert.equal(res.status, r.status, r.uri);
    if (r.rdf) assert.equal(url, r.finalUrl);
  }
  assert.ok(
    truth.some((r) => r.changes.some((c) => !c.graphChanged)) && truth.some((r) => r.bornAt !== null),
  );
});

test('documents answer 404 before they appear and 404/410 after they disappear', async () => {
  const web = sim.web;
  let checked = 0;
  for (let d = 0; d < web.docCount && checked < 3; d++) {
    const s = documentState(web, d);
    if (s.life.diedAt === null || s.fault !== null) continue;
    const url = docAddress(web, d).docUrl;
    sim.setClock(s.life.diedAt - 1);
    assert.equal((await simGet(sim, url)).status, 200);
    sim.setClock(s.life.diedAt);
    assert.equal((await simGet(sim, url)).status, s.life.goneStatus);
    if (s.life.bornAt !== null) {
      sim.setClock(s.life.bornAt - 1);
      assert.equal((await simGet(sim, url)).status, 404);
    }
    checked++;
  }
  assert.equal(checked, 3);
});

test('content negotiation: honour, ignore and strict hosts; 303 for DBpedia-style resources', async () => {
  sim.setClock(Date.UTC(2026, 0, 5));
  const web = sim.web;
  const seen = new Set<string>();
  for (const p of web.plds) {
    if (p.kind !== 'data' || seen.has(p.conneg + p.style)) continue;
    const a = docAddress(web, p.docStart);
    const s = documentState(web, a.doc);
    seen.add(p.conneg + p.style);
    const turtle = await simGet(sim, a.docUrl, { accept: 'text/turtle' });
    if (p.conneg === 'honour') assert.match(turtle.headers['content-type'], /^text\/turtle/);
    if (p.conneg === 'ignore') assert.equal(turtle.status, 200);
    if (p.conneg === 'strict') assert.equal(turtle.status, s.format === 'turtle' ? 200 : 406);
    if (p.style === 'see-other') {
      const r = await simGet(sim, a.uri);
      assert.equal(r.status, 303);
      assert.equal(r.headers.location, new URL(a.docUrl).href);
    }
  }
  assert.ok(seen.size >= 5, [...seen].join());
});

test('compressing hosts gzip when asked; validators give 304', async () => {
  const p = sim.web.plds.find((x) => x.kind === 'data' && x.compress && x.validators === 'correct')!;
  const url = docAddress(sim.web, p.docStart).docUrl;
  const res = await simGet(sim, url, { 'accept-encoding': 'gzip' });
  assert.equal(res.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(res.body).length > res.body.length);
  const again = await simGet(sim, url, { 'if-none-match': res.headers.etag });
  assert.equal(again.status, 304);
});

test('unknown hosts and paths are 404, other methods 405', async () => {
  assert.equal((await simGet(sim, 'http://nowhere.invalid/x')).status, 404);
  const res = await request(`${sim.origin}/x`, { method: 'POST', headers: { host: 'dbpedia.org' } });
  await res.body.dump();
  assert.equal(res.statusCode, 405);
  const typed: TruthRecord[] = sim.truth(Date.UTC(2026, 0, 5));
  assert.ok(typed.length > 1500);
});
