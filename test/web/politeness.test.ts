import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../pipeline/core/index.ts';
import { createFetcher, createPolitenessGate } from '../../pipeline/web/index.ts';
import { configFor, smallestGaps, startServer } from './http-server.ts';

const DELAY = 120;

describe('politeness invariant, measured at the server', () => {
  it('request starts per PLD are >= delay apart: several hosts, redirects, robots.txt, high concurrency', async () => {
    const server = await startServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/robots.txt') {
        if (req.headers.host?.startsWith('moved.'))
          return res.writeHead(301, { location: '/robots-real.txt' }).end();
        return res.end('User-agent: *\nDisallow: /private\n');
      }
      if (path.startsWith('/hop'))
        return res.writeHead(303, { location: `http://b.example.org/doc${path}` }).end();
      if (path.startsWith('/slow')) return setTimeout(() => res.end('slow'), 60);
      res.end('doc');
    });
    const fetcher = createFetcher(configFor(server.port, { delayMs: DELAY, concurrency: 64 }));
    const urls: string[] = [];
    for (let i = 0; i < 4; i++) {
      urls.push(
        `http://a.example.org/doc${i}`,
        `http://b.example.org/hop${i}`,
        `http://example.org/slow${i}`,
      );
      urls.push(
        `http://moved.example.org/doc${i}`,
        `http://www.example.net/doc${i}`,
        `http://x.example.net/hop${i}`,
      );
      urls.push(`http://a.example.org/private${i}`);
    }
    const results = await Promise.all(urls.map((u) => fetcher.fetchDocument(u)));
    await fetcher.close();
    await server.close();
    assert.ok(results.every((r) => r.error === null || r.error === 'robots'));
    assert.equal(results.filter((r) => r.redirects.length > 0).length, 8);
    const gaps = smallestGaps(server.seen);
    assert.deepEqual([...gaps.keys()].sort(), ['example.net', 'example.org']);
    for (const [pld, gap] of gaps) assert.ok(gap >= DELAY, `${pld}: two requests ${gap.toFixed(1)} ms apart`);
    assert.ok(
      server.seen.some((s) => s.path === '/robots-real.txt'),
      'robots.txt redirects were fetched',
    );
  });

  it('perPld > 1 overlaps slow responses but still spaces the starts', async () => {
    let inFlight = 0;
    let most = 0;
    const server = await startServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      inFlight++;
      most = Math.max(most, inFlight);
      // the headers go out at once (so the start is confirmed), the body takes longer than the delay
      res.writeHead(200);
      res.write('x');
      setTimeout(() => {
        inFlight--;
        res.end('y');
      }, 250);
    });
    const fetcher = createFetcher(configFor(server.port, { delayMs: 60, perPld: 3 }));
    const urls = Array.from({ length: 6 }, (_, i) => `http://a.example.org/d${i}`);
    const results = await Promise.all(urls.map((u) => fetcher.fetchDocument(u)));
    await fetcher.close();
    await server.close();
    assert.ok(results.every((r) => r.body?.toString() === 'xy'));
    assert.ok(most >= 2 && most <= 3, `at most perPld in flight, and more than one: ${most}`);
    for (const [pld, gap] of smallestGaps(server.seen)) assert.ok(gap >= 60, `${pld}: ${gap}`);
  });

  it('429 with Retry-After holds the PLD back and is retried', async () => {
    let served = 0;
    const server = await startServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      served++;
      if (served === 1) return res.writeHead(429, { 'retry-after': '1' }).end();
      res.end('doc');
    });
    const fetcher = createFetcher(configFor(server.port, { delayMs: 20, maxAttempts: 2 }));
    const result = await fetcher.fetchDocument('http://a.example.org/doc');
    await fetcher.close();
    await server.close();
    assert.equal(result.error, null);
    assert.equal(result.attempts, 2);
    const docs = server.seen.filter((s) => s.path === '/doc');
    assert.ok(docs[1].at - docs[0].at >= 1000, `retried ${docs[1].at - docs[0].at} ms later`);
  });

  it('a Retry-After beyond the cap is bounded by crawlDelayCapMs', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(503, { 'retry-after': '3600' }).end();
    });
    const fetcher = createFetcher(
      configFor(server.port, { delayMs: 20, maxAttempts: 2, crawlDelayCapMs: 200 }),
    );
    const result = await fetcher.fetchDocument('http://a.example.org/doc');
    await fetcher.close();
    await server.close();
    assert.equal(result.error, 'http_5xx');
    assert.equal(result.status, 503);
    assert.equal(result.attempts, 2);
  });
});

describe('politeness gate', () => {
  const config = { delayMs: 1000, perPld: 1, crawlDelayCapMs: 60_000 };

  it('answers readyAt without blocking: now for a new PLD, Infinity while one is unconfirmed', async () => {
    const clock = manualClock(10_000);
    const gate = createPolitenessGate(config, clock);
    assert.equal(gate.readyAt('example.org'), 10_000);
    const permit = await gate.acquire('example.org');
    assert.equal(gate.readyAt('example.org'), Number.POSITIVE_INFINITY);
    assert.equal(gate.readyAt('example.net'), 10_000, 'other PLDs are independent');
    clock.advance(200);
    permit.confirm();
    assert.equal(gate.readyAt('example.org'), Number.POSITIVE_INFINITY, 'still in flight with perPld 1');
    permit.release();
    assert.equal(gate.readyAt('example.org'), 10_200 + 1 + 1000);
  });

  it('penalise and crawl delays move readyAt; the delay never drops below the configured one', async () => {
    const clock = manualClock(0);
    const gate = createPolitenessGate(config, clock);
    (await gate.acquire('example.org')).release();
    gate.penalise('example.org', 5000);
    assert.equal(gate.readyAt('example.org'), 5000);
    gate.setCrawlDelay('example.net', 10);
    assert.equal(gate.delayOf('example.net'), 1000);
    gate.setCrawlDelay('example.net', 120_000);
    assert.equal(gate.delayOf('example.net'), 60_000);
  });

  it('an aborted wait leaves the queue and rejects with the reason', async () => {
    const gate = createPolitenessGate({ ...config, delayMs: 10_000 }, manualClock(0));
    const permit = await gate.acquire('example.org');
    const controller = new AbortController();
    const waiting = gate.acquire('example.org', controller.signal);
    controller.abort(new Error('stop'));
    await assert.rejects(waiting, /stop/);
    permit.release();
  });
});
