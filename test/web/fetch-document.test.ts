import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { CrawlConfig } from '../../pipeline/core/index.ts';
import { ACCEPT_JSONLD, ACCEPT_RDF, createFetcher } from '../../pipeline/web/index.ts';
import { configFor, startServer, type TestServer } from './http-server.ts';

/** Routes: /to/<status>/<path...> redirects with that status to /<path...>; /loop/<n> loops. */
function route(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  if (path === '/robots.txt') return void res.end('User-agent: *\nDisallow: /forbidden\n');
  const to = /^\/to\/(\d{3})(\/.*)$/.exec(path);
  if (to) return void res.writeHead(Number(to[1]), { location: to[2] }).end();
  if (path === '/cross') return void res.writeHead(302, { location: 'http://other.example.net/doc' }).end();
  if (path === '/to-forbidden') return void res.writeHead(301, { location: '/forbidden' }).end();
  if (path === '/loop/a') return void res.writeHead(302, { location: '/loop/b' }).end();
  if (path === '/loop/b') return void res.writeHead(302, { location: '/loop/a' }).end();
  const chain = /^\/chain\/(\d+)$/.exec(path);
  if (chain && chain[1] !== '0')
    return void res.writeHead(307, { location: `/chain/${Number(chain[1]) - 1}` }).end();
  if (path === '/no-location') return void res.writeHead(301).end();
  if (path === '/bad-location')
    return void res.writeHead(302, { location: 'mailto:someone@example.org' }).end();
  if (path === '/gone') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  if (path === '/teapot') return void res.writeHead(429).end();
  if (path === '/error') return void res.writeHead(500).end();
  res.writeHead(200, { 'Content-Type': 'text/turtle', 'X-Custom-Header': 'yes' }).end(`doc ${path}`);
}

describe('fetchDocument', () => {
  let server: TestServer;
  let config: CrawlConfig;
  before(async () => {
    server = await startServer(route);
    config = configFor(server.port, { maxRedirects: 3, maxAttempts: 2 });
  });
  after(() => server.close());

  const get = async (url: string, overrides: Partial<CrawlConfig> = {}) => {
    const fetcher = createFetcher({ ...config, ...overrides });
    try {
      return await fetcher.fetchDocument(url);
    } finally {
      await fetcher.close();
    }
  };

  for (const status of [301, 302, 303, 307, 308]) {
    it(`follows ${status} and records the hop`, async () => {
      const result = await get(`http://a.example.org/to/${status}/doc`);
      assert.equal(result.error, null);
      assert.equal(result.status, 200);
      assert.equal(result.finalUrl, 'http://a.example.org/doc');
      assert.equal(result.body?.toString(), 'doc /doc');
      assert.equal(result.redirects.length, 1);
      const [hop] = result.redirects;
      assert.deepEqual(
        [hop.from, hop.to, hop.status],
        [`http://a.example.org/to/${status}/doc`, result.finalUrl, status],
      );
      assert.ok(hop.at >= result.startedAt);
      assert.equal(result.attempts, 2);
    });
  }

  it('follows a chain up to maxRedirects', async () => {
    const result = await get('http://a.example.org/chain/3');
    assert.equal(result.error, null);
    assert.equal(result.finalUrl, 'http://a.example.org/chain/0');
    assert.equal(result.redirects.length, 3);
    assert.equal(result.attempts, 4);
  });

  it('stops past maxRedirects with redirect_limit', async () => {
    const result = await get('http://a.example.org/chain/9');
    assert.equal(result.error, 'redirect_limit');
    assert.equal(result.redirects.length, 4);
    assert.equal(result.body, null);
  });

  it('detects a cycle with redirect_loop', async () => {
    const result = await get('http://a.example.org/loop/a');
    assert.equal(result.error, 'redirect_loop');
    assert.deepEqual(
      result.redirects.map((h) => h.to),
      ['http://a.example.org/loop/b', 'http://a.example.org/loop/a'],
    );
  });

  it('a redirect without Location is redirect_invalid, status kept', async () => {
    const result = await get('http://a.example.org/no-location');
    assert.equal(result.error, 'redirect_invalid');
    assert.equal(result.status, 301);
  });

  it('a redirect to a non-http URL is redirect_invalid', async () => {
    assert.equal((await get('http://a.example.org/bad-location')).error, 'redirect_invalid');
  });

  it('checks robots.txt again on every hop', async () => {
    const result = await get('http://a.example.org/to-forbidden');
    assert.equal(result.error, 'robots');
    assert.equal(result.redirects.length, 1);
    assert.ok(!server.seen.some((s) => s.path === '/forbidden'));
  });

  it('follows a redirect to another PLD', async () => {
    const result = await get('http://a.example.org/cross');
    assert.equal(result.finalUrl, 'http://other.example.net/doc');
    assert.equal(result.error, null);
  });

  it('strips the fragment and keeps the URL asked for', async () => {
    const result = await get('http://a.example.org/doc#me');
    assert.equal(result.url, 'http://a.example.org/doc#me');
    assert.equal(result.finalUrl, 'http://a.example.org/doc');
  });

  // [path, error, status, attempts]
  const STATUS_CASES: [string, string, number, number][] = [
    ['/gone', 'http_4xx', 404, 1],
    ['/teapot', 'http_429', 429, 2],
    ['/error', 'http_5xx', 500, 2],
  ];
  for (const [path, error, status, attempts] of STATUS_CASES) {
    it(`${status} is ${error} after ${attempts} attempt(s)`, async () => {
      const result = await get(`http://a.example.org${path}`, { delayMs: 5 });
      assert.deepEqual([result.error, result.status, result.attempts], [error, status, attempts]);
    });
  }

  it('a URL that is not http(s) is bad_url and sends nothing', async () => {
    const before = server.seen.length;
    assert.equal((await get('ftp://a.example.org/x')).error, 'bad_url');
    assert.equal((await get('not a url')).error, 'bad_url');
    assert.equal(server.seen.length, before);
  });

  it('lower-cases response header names', async () => {
    const result = await get('http://a.example.org/doc');
    assert.equal(result.headers['content-type'], 'text/turtle');
    assert.equal(result.headers['x-custom-header'], 'yes');
  });

  it('sends our User-Agent, the RDF Accept header and the encodings we decode', async () => {
    await get('http://a.example.org/ua-check');
    const seen = server.seen.find((s) => s.path === '/ua-check');
    assert.equal(seen?.headers['user-agent'], config.userAgent);
    assert.match(seen?.headers['user-agent'] ?? '', /LinkedDataObservatory/);
    assert.equal(seen?.headers.accept, ACCEPT_RDF);
    assert.match(seen?.headers['accept-encoding'] ?? '', /gzip, deflate, br/);
    const robots = server.seen.find((s) => s.path === '/robots.txt');
    assert.equal(robots?.headers['user-agent'], config.userAgent);
  });

  it('fetchContext asks for JSON-LD', async () => {
    const fetcher = createFetcher(config);
    const result = await fetcher.fetchContext('http://a.example.org/context.jsonld');
    await fetcher.close();
    assert.equal(result.error, null);
    assert.equal(server.seen.find((s) => s.path === '/context.jsonld')?.headers.accept, ACCEPT_JSONLD);
  });

  it('keeps statistics per PLD', async () => {
    const fetcher = createFetcher(config);
    await fetcher.fetchDocument('http://a.example.org/to/303/doc');
    await fetcher.fetchDocument('http://x.example.net/gone');
    const org = fetcher.stats().get('example.org');
    const net = fetcher.stats().get('example.net');
    await fetcher.close();
    assert.deepEqual(org?.statuses, { 200: 2, 303: 1 });
    assert.equal(org?.requests, 3);
    assert.equal(org?.robotsRequests, 1);
    assert.equal(
      org?.bytes,
      Buffer.byteLength('doc /doc') + Buffer.byteLength('User-agent: *\nDisallow: /forbidden\n'),
    );
    assert.deepEqual(net?.statuses, { 200: 1, 404: 1 });
  });
});
