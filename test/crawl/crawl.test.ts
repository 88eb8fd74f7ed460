import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { crawlConfig, parseResolveRule, payLevelDomain } from '../../pipeline/core/index.ts';
import { type CrawlPlan, readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { crawlInto } from './sim-crawl.ts';

/**
 * A small link graph served over real HTTP (hosts routed to 127.0.0.1 by --resolve):
 *   a.org/0 -> b.org/1, c.org/2, a.org/5 ;  b.org/1 -> d.org/3 ;  d.org/3 -> e.org/4 (hop 3)
 *   a.org/5 is a 303 to a.org/data/5
 * Every IRI is a link, predicates and datatypes too: ex.org/p, ex.org/link and XMLSchema are
 * fetched in round 1 (and answer 404 or are refused).
 */
const links: Record<string, string[]> = {
  'a.org/0': ['http://b.org/1', 'http://c.org/2', 'http://a.org/5'],
  'b.org/1': ['http://d.org/3', 'http://a.org/0'],
  'c.org/2': [],
  'd.org/3': ['http://e.org/4'],
  'e.org/4': [],
  'a.org/data/5': [],
  // one PLD with four URLs in round 1, and no PLD that round 2 would bring: the round-end rules differ
  'f.org/0': ['http://g.org/1', 'http://g.org/2', 'http://g.org/3', 'http://g.org/4'],
  'g.org/1': [],
  'g.org/2': [],
  'g.org/3': [],
  'g.org/4': [],
};

interface Hit {
  host: string;
  path: string;
  at: number;
}

let server: Server;
let port: number;
const hits: Hit[] = [];
/** Called after the server answered a document: lets a test act at a point of the crawl, not of the clock. */
let afterDocument: (() => void) | null = null;

before(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    hits.push({ host, path: req.url ?? '', at: performance.now() });
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    if (host === 'a.org' && req.url === '/5') {
      return void res.writeHead(303, { location: 'http://a.org/data/5' }).end();
    }
    const key = `${host}${req.url}`.replace(/\/$/, '');
    const out = links[key];
    if (!out) return void res.writeHead(404).end();
    const body = [
      `<http://${key}> <http://ex.org/p> "doc ${key}" .`,
      ...out.map((o) => `<http://${key}> <http://ex.org/link> <${o}> .`),
    ];
    res.writeHead(200, { 'content-type': 'text/turtle' }).end(body.join('\n'));
    afterDocument?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => server.close());

const DELAY = 60;

function config() {
  return crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: DELAY,
    concurrency: 4,
  });
}

const plan: CrawlPlan = {
  seeds: ['http://a.org/0'],
  maxDepth: 2,
  maxRounds: 3,
  maxDocuments: Number.POSITIVE_INFINITY,
  segmentFor: () => 'expand',
};

const crawl = (dir: string, signal?: AbortSignal) => crawlInto(dir, config(), plan, { signal });

async function journalUrls(dir: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const { record } of readJournalDocuments(dir)) urls.push(record.url);
  return urls.sort();
}

test('a 2-hop crawl fetches exactly the documents within 2 hops, politely', async () => {
  hits.length = 0;
  const dir = mkdtempSync(join(tmpdir(), 'crawl-'));
  const result = await crawl(dir);
  assert.equal(result.complete, true);
  assert.deepEqual(await journalUrls(dir), [
    'http://a.org/0',
    'http://a.org/5',
    'http://b.org/1',
    'http://c.org/2',
    'http://d.org/3',
    'http://ex.org/link',
    'http://ex.org/p',
    'http://www.w3.org/2001/XMLSchema',
  ]);
  assert.ok(!hits.some((h) => h.host === 'e.org'), 'hop 3 is not fetched');
  assert.deepEqual(
    result.stats.rounds.map((r) => [r.round, r.documents]),
    [
      [0, 1],
      [1, 6],
      [2, 1],
    ],
  );
  const byPld = new Map<string, number[]>();
  for (const h of hits)
    byPld.set(payLevelDomain(h.host), [...(byPld.get(payLevelDomain(h.host)) ?? []), h.at]);
  for (const [pld, times] of byPld) {
    for (let i = 1; i < times.length; i++) {
      assert.ok(times[i] - times[i - 1] >= DELAY - 1, `${pld}: requests ${times[i] - times[i - 1]} ms apart`);
    }
  }
});

test("round-end rules: ours keeps a round while the next brings no new PLD, ldspider's ends it", async () => {
  const rounds = async (roundEnd: 'observatory' | 'ldspider') => {
    const dir = mkdtempSync(join(tmpdir(), `round-end-${roundEnd}-`));
    const result = await crawlInto(dir, crawlConfig({ ...config(), roundEnd }), {
      ...plan,
      seeds: ['http://f.org/0'],
    });
    assert.equal(result.complete, true);
    const roundOf = new Map<string, number>();
    for await (const { record } of readJournalDocuments(dir)) roundOf.set(record.url, record.round);
    return {
      urls: await journalUrls(dir),
      rounds: result.stats.rounds.filter((r) => r.documents > 0).map((r) => [r.round, r.documents]),
      roundOf,
    };
  };
  // round 1 (g.org x 4, ex.org x 2) has 2 active PLDs for 4 fetch slots from its start
  const ours = await rounds('observatory');
  assert.deepEqual(ours.rounds, [
    [0, 1],
    [1, ours.urls.length - 1],
  ]);
  // ldspider: fewer active PLDs than slots ends round 1 at once; its rest is round 2's
  const ldspider = await rounds('ldspider');
  assert.deepEqual(ldspider.urls, ours.urls, 'the same documents either way');
  assert.deepEqual(ldspider.rounds[0], [0, 1]);
  assert.equal(ldspider.rounds.at(-1)?.[0], 2, JSON.stringify(ldspider.rounds));
  assert.ok((ldspider.rounds.at(-1)?.[1] ?? 0) >= 4, JSON.stringify(ldspider.rounds));
  // what documents.parquet's `round` holds is a when, not a hop (docs/data-dictionary.md): g.org's
  // documents are one hop from the seed, in round 2 of a crawl whose rounds are capped at hops + 1
  // (as `expand --rounds hops` caps them)
  assert.equal(plan.maxRounds, plan.maxDepth + 1);
  for (const n of [1, 2, 3, 4]) assert.equal(ldspider.roundOf.get(`http://g.org/${n}`), 2, `g.org/${n}`);
});

test('the redirect target is recorded as final URL and not fetched again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crawl-'));
  await crawl(dir);
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  const five = docs.find((d) => d.record.url === 'http://a.org/5')!;
  assert.equal(five.record.finalUrl, 'http://a.org/data/5');
  assert.deepEqual(
    five.record.redirects.map((h) => [h.from, h.to, h.status]),
    [['http://a.org/5', 'http://a.org/data/5', 303]],
  );
  assert.equal(docs.filter((d) => d.record.finalUrl === 'http://a.org/data/5').length, 1);
});

test('a stopped crawl resumes from its journal: same documents, none twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crawl-'));
  const stop = new AbortController();
  afterDocument = () => stop.abort();
  const first = await crawl(dir, stop.signal).finally(() => {
    afterDocument = null;
  });
  assert.equal(first.complete, false);
  const partial = await journalUrls(dir);
  assert.ok(partial.length < 8, `stopped after ${partial.length} documents`);
  hits.length = 0;
  const second = await crawl(dir);
  assert.equal(second.complete, true);
  const urls = await journalUrls(dir);
  assert.deepEqual(urls, [...new Set(urls)]);
  assert.equal(urls.length, 8);
  const refetched = hits.filter((h) => h.path !== '/robots.txt').map((h) => `http://${h.host}${h.path}`);
  for (const url of partial) assert.ok(!refetched.includes(url), `${url} fetched again after resume`);
});
