import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { systemClock } from '../../pipeline/core/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { configFor, startServer } from './http-server.ts';

/** A server whose robots.txt answer is `robots`; every other path answers 200 "doc". */
async function withRobots(
  robots: (res: ServerResponse, path: string) => void,
  run: (port: number) => Promise<void>,
) {
  const server = await startServer((req, res) => {
    if (req.url?.includes('robots')) return robots(res, req.url);
    res.end('doc');
  });
  try {
    await run(server.port);
  } finally {
    await server.close();
  }
}

// [robots.txt answer, the document's expected error]
const STATUS_CASES: [string, (res: ServerResponse) => void, string | null][] = [
  ['200 disallowing', (res) => res.end('User-agent: *\nDisallow: /doc'), 'robots'],
  ['200 allowing', (res) => res.end('User-agent: *\nDisallow: /other'), null],
  ['404: allow all', (res) => res.writeHead(404).end('User-agent: *\nDisallow: /'), null],
  ['403: allow all', (res) => res.writeHead(403).end(), null],
  ['410: allow all', (res) => res.writeHead(410).end(), null],
  ['429: disallow all for now', (res) => res.writeHead(429).end(), 'robots_unavailable'],
  ['500: disallow all for now', (res) => res.writeHead(500).end(), 'robots_unavailable'],
  ['503: disallow all for now', (res) => res.writeHead(503).end(), 'robots_unavailable'],
  ['connection reset: disallow all', (res) => res.socket?.destroy(), 'robots_unavailable'],
];

describe('robots.txt over HTTP', () => {
  for (const [name, answer, expected] of STATUS_CASES) {
    it(name, () =>
      withRobots(answer, async (port) => {
        const fetcher = createFetcher(configFor(port, { maxAttempts: 1 }));
        const result = await fetcher.fetchDocument('http://site.example.org/doc');
        await fetcher.close();
        assert.equal(result.error, expected);
        assert.equal(result.body?.toString() ?? null, expected === null ? 'doc' : null);
      }),
    );
  }

  it('is fetched once per authority and cached; another port is another authority', () =>
    withRobots(
      (res) => res.end('User-agent: *\nDisallow: /doc'),
      async (port) => {
        const fetcher = createFetcher(configFor(port));
        const urls = ['http://a.example.org/doc', 'http://a.example.org/x', 'http://a.example.org/y'];
        await Promise.all(urls.map((u) => fetcher.fetchDocument(u)));
        await fetcher.fetchDocument('http://a.example.org:8080/x');
        const stats = fetcher.stats().get('example.org');
        await fetcher.close();
        assert.equal(stats?.robotsRequests, 2);
        assert.equal(stats?.requests, 2 + 3);
      },
    ));

  it('is fetched again after robotsUnavailableTtlMs when it was unavailable', () => {
    let calls = 0;
    return withRobots(
      (res) => {
        calls++;
        if (calls === 1) res.writeHead(503).end();
        else res.end('User-agent: *\nAllow: /');
      },
      async (port) => {
        // the TTL runs on the fetcher's clock, moved forward by hand, so the verdict cannot depend on
        // how busy the machine is; waits (timeouts, politeness) still pass in real time
        let skipped = 0;
        const clock = { now: () => systemClock.now() + skipped, sleep: systemClock.sleep };
        const ttlMs = 60_000;
        const fetcher = createFetcher(
          configFor(port, { maxAttempts: 1, robotsUnavailableTtlMs: ttlMs }),
          clock,
        );
        const first = await fetcher.fetchDocument('http://a.example.org/doc');
        const cached = await fetcher.fetchDocument('http://a.example.org/doc');
        skipped += ttlMs + 1;
        const later = await fetcher.fetchDocument('http://a.example.org/doc');
        await fetcher.close();
        assert.deepEqual(
          [first.error, cached.error, later.error],
          ['robots_unavailable', 'robots_unavailable', null],
        );
        assert.equal(calls, 2);
      },
    );
  });

  it('follows redirects (across hosts) and applies the result to the original authority', () =>
    withRobots(
      (res, path) => {
        if (path === '/robots.txt')
          return res.writeHead(301, { location: 'http://other.example.net/r1-robots' }).end();
        if (path === '/r1-robots') return res.writeHead(302, { location: '/final-robots.txt' }).end();
        res.end('User-agent: *\nDisallow: /doc');
      },
      async (port) => {
        const fetcher = createFetcher(configFor(port));
        const blocked = await fetcher.fetchDocument('http://a.example.org/doc');
        const allowed = await fetcher.fetchDocument('http://a.example.org/ok');
        await fetcher.close();
        assert.equal(blocked.error, 'robots');
        assert.equal(allowed.error, null);
        assert.equal(blocked.attempts, 0, 'robots.txt requests are not attempts');
      },
    ));

  it('more than five robots.txt redirects: taken as unavailable (allow all, RFC 9309 2.3.1.2)', () =>
    withRobots(
      (res, path) => {
        const n = Number(/\d+/.exec(path)?.[0] ?? 0);
        res.writeHead(302, { location: `/robots${n + 1}` }).end();
      },
      async (port) => {
        const fetcher = createFetcher(configFor(port));
        const result = await fetcher.fetchDocument('http://a.example.org/doc');
        const robotsRequests = fetcher.stats().get('example.org')?.robotsRequests;
        await fetcher.close();
        assert.equal(result.error, null);
        assert.equal(robotsRequests, 6, 'the file and five redirects');
      },
    ));

  it('an oversized robots.txt (> 500 KiB) is parsed up to the limit', () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(520); // ~520 KiB of comments
    const text = `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`;
    assert.ok(Buffer.byteLength(text) > 500 * 1024);
    return withRobots(
      (res) => res.end(text),
      async (port) => {
        const fetcher = createFetcher(configFor(port));
        const early = await fetcher.fetchDocument('http://a.example.org/early');
        const late = await fetcher.fetchDocument('http://a.example.org/late');
        await fetcher.close();
        assert.equal(early.error, 'robots');
        assert.equal(late.error, null, 'rules past the limit are not read');
      },
    );
  });

  it('a Crawl-delay for our token slows its PLD, capped at crawlDelayCapMs', () =>
    withRobots(
      (res) => res.end('User-agent: LinkedDataObservatory\nCrawl-delay: 30\n'),
      async (port) => {
        const fetcher = createFetcher(configFor(port, { delayMs: 10, crawlDelayCapMs: 250 }));
        await fetcher.fetchDocument('http://a.example.org/doc');
        const delay = fetcher.gate.delayOf('example.org');
        await fetcher.close();
        assert.equal(delay, 250);
      },
    ));
});
