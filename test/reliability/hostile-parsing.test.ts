import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { crawlSim, planFor } from '../crawl/sim-crawl.ts';
import { configFor, type Seen, smallestGaps, startServer, type TestServer } from '../web/http-server.ts';

/**
 * Documents that attack the parsers, crawled over real HTTP while other documents are in flight.
 * Parsing runs in worker threads with a CPU budget per document, so a document that would stall
 * a parser for minutes gets its own error code and the crawl's other fetches never notice.
 */
const RDFA = '<div property="http://ex.org/p">x</div>';
/** 900 KB of `<div></b>`: 102 s of parsing on the main thread before the depth guard counted right. */
const strayEndTags = `<html><body>${RDFA}${'<div></b>'.repeat(100_000)}</body></html>`;
/**
 * Under the depth bound, then 3 million stray end tags: each makes the HTML parser search the 4,000
 * open elements (about 10 µs), some 30 s of CPU, 30 times the budget the crawl below gives.
 */
const pastBudget = `<html><body>${'<div>'.repeat(4000)}${RDFA}${'</b>'.repeat(3_000_000)}</body></html>`;
const TURTLE = '<http://ok.example/s> <http://ok.example/p> "fine" .';
const CONTEXT = JSON.stringify({ '@context': { name: 'http://schema.org/name' } });

/** A JSON-LD document whose nodes each name their own remote context, on `hosts` hosts. */
function contextBomb(hosts: number): string {
  const nodes = [];
  for (let i = 0; i < hosts; i++) {
    nodes.push({ '@context': `http://c${i}.ctx.example/ctx`, '@id': `http://ex.org/n${i}`, name: `n${i}` });
  }
  return JSON.stringify(nodes);
}

/** A JSON-LD document naming one remote context. */
function usesContext(url: string): string {
  return JSON.stringify({ '@context': url, '@id': 'http://ex.org/thing', name: 'thing' });
}

const timers = new Set<NodeJS.Timeout>();

function route(req: IncomingMessage, res: ServerResponse): void {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const path = req.url ?? '/';
  const send = (type: string, body: string): void =>
    void res.writeHead(200, { 'content-type': type }).end(body);
  if (path === '/robots.txt') return void res.writeHead(404).end();
  if (path === '/stray') return void send('text/html', strayEndTags);
  if (path === '/past-budget') return void send('text/html', pastBudget);
  if (path === '/slow') {
    // still in flight while the hostile pages are parsed
    const timer = setTimeout(() => send('text/turtle', TURTLE), 1000);
    timers.add(timer);
    return;
  }
  if (path === '/ctx') return void send('application/ld+json', CONTEXT);
  if (path === '/bomb') return void send('application/ld+json', contextBomb(50));
  if (path === '/shared') return void send('application/ld+json', usesContext('http://vocab.example/ctx'));
  if (path === '/own')
    return void send('application/ld+json', usesContext(`http://${host.split('.')[0]}.own-ctx.example/ctx`));
  res.writeHead(404).end();
}

let server: TestServer;
before(async () => {
  server = await startServer(route);
});
after(() => {
  for (const t of timers) clearTimeout(t);
  return server.close();
});

/** Context requests the server saw, by the PLD they went to. */
function contextRequests(seen: readonly Seen[], pld: string): Seen[] {
  return seen.filter((s) => s.path === '/ctx' && s.pld === pld);
}

test('pages that stall a parser get too_complex while the other fetches go on', async () => {
  const others = ['a', 'b', 'c', 'd', 'e', 'f'].map((h) => `http://${h}.slow.example/slow`);
  const hostile: [string, string][] = [
    ['http://stray.hostile.example/stray', 'too_complex'],
    ['http://budget.hostile.example/past-budget', 'too_complex'],
  ];
  // a fetch timeout 20 times the slow documents' 1 s: a fetch recorded as `timeout` here means the
  // crawl's timers were starved, as they were while a parser blocked the main thread
  const config = configFor(server.port, {
    timeoutMs: 20_000,
    maxAttempts: 1,
    concurrency: 16,
    parseBudgetMs: 1000,
  });
  const { records, result } = await crawlSim(config, planFor([...hostile.map(([u]) => u), ...others], 0));
  assert.equal(result.complete, true);
  for (const [url, code] of hostile) {
    assert.equal(records.get(url)?.error, code, `${url}: ${records.get(url)?.errorMessage}`);
  }
  for (const url of others) {
    const record = records.get(url);
    assert.equal(record?.error, null, `${url}: ${record?.error} ${record?.errorMessage}`);
    assert.equal(record?.statements, 1, url);
  }
  assert.ok(![...records.values()].some((r) => r.error === 'timeout'));
});

test('remote JSON-LD contexts are bounded per document, fetched once per crawl, and polite', async () => {
  server.seen.length = 0;
  const delayMs = 200;
  const config = configFor(server.port, { delayMs, maxContextsPerDocument: 4 });
  const bomb = 'http://bomb.example/bomb';
  const sharing = ['a', 'b', 'c'].map((h) => `http://${h}.sharing.example/shared`);
  const { records } = await crawlSim(config, planFor([bomb, ...sharing], 0));
  const refused = records.get(bomb);
  assert.equal(refused?.error, 'context_limit', refused?.errorMessage ?? '');
  assert.match(
    refused?.errorMessage ?? '',
    /more than 4 remote JSON-LD contexts; http:\/\/c4\.ctx\.example\/ctx/,
  );
  // the document named 50 contexts on 50 hosts: the first 4 were fetched, the 5th refused unfetched
  assert.equal(contextRequests(server.seen, 'ctx.example').length, 4);
  assert.equal(new Set(server.seen.filter((s) => s.pld === 'ctx.example').map((s) => s.host)).size, 4);
  for (const url of sharing) {
    assert.equal(records.get(url)?.error, null, `${url}: ${records.get(url)?.errorMessage}`);
    assert.equal(records.get(url)?.statements, 1);
  }
  // three documents name it, it is fetched once
  assert.equal(contextRequests(server.seen, 'vocab.example').length, 1);
  // contexts go through the polite fetcher: robots.txt and context requests to one PLD keep the delay
  assert.ok((smallestGaps(server.seen).get('ctx.example') ?? Number.POSITIVE_INFINITY) >= delayMs);
});

test('a crawl fetches at most maxContextsPerCrawl contexts and records the documents it refused', async () => {
  server.seen.length = 0;
  const config = configFor(server.port, { maxContextsPerCrawl: 2 });
  const urls = ['a', 'b', 'c', 'd'].map((h) => `http://${h}.own.example/own`);
  const { records } = await crawlSim(config, planFor(urls, 0));
  const errors = urls.map((u) => records.get(u)?.error ?? null);
  assert.equal(errors.filter((e) => e === null).length, 2, String(errors));
  assert.equal(errors.filter((e) => e === 'context_limit').length, 2, String(errors));
  for (const url of urls.filter((u) => records.get(u)?.error === 'context_limit')) {
    assert.match(records.get(url)?.errorMessage ?? '', /fetched its limit of 2 contexts/);
  }
  assert.equal(contextRequests(server.seen, 'own-ctx.example').length, 2);
});
