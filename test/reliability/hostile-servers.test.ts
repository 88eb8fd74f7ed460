import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { crawlSim, planFor } from '../crawl/sim-crawl.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';

/** Servers that attack the crawler: each URL gets its error code and the crawl goes on. */
const zeros = Buffer.alloc(64 * 1024 * 1024);
const gzipBomb = gzipSync(zeros, { level: 9 });
const brotliBomb = brotliCompressSync(zeros);
const nestedBomb = gzipSync(gzipBomb);
const timers = new Set<NodeJS.Timeout>();

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  if (path === '/robots.txt') return void res.writeHead(404).end();
  if (path === '/gzip-bomb')
    return void res
      .writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/turtle' })
      .end(gzipBomb);
  if (path === '/br-bomb')
    return void res
      .writeHead(200, { 'content-encoding': 'br', 'content-type': 'text/turtle' })
      .end(brotliBomb);
  if (path === '/nested-bomb')
    return void res
      .writeHead(200, { 'content-encoding': 'gzip, gzip', 'content-type': 'text/turtle' })
      .end(nestedBomb);
  const hop = /^\/endless\/(\d+)$/.exec(path);
  if (hop) return void res.writeHead(302, { location: `/endless/${Number(hop[1]) + 1}` }).end();
  if (path === '/slowloris') {
    res.writeHead(200, { 'content-type': 'text/turtle' });
    const timer = setInterval(() => res.write('#'), 100);
    timers.add(timer);
    return void res.on('close', () => clearInterval(timer));
  }
  if (path === '/silent') return; // headers never come
  res
    .writeHead(200, { 'content-type': 'text/turtle' })
    .end('<http://ok.example/s> <http://ok.example/p> "fine" .');
}

let server: TestServer;
before(async () => {
  server = await startServer(route);
});
after(() => {
  for (const t of timers) clearInterval(t);
  return server.close();
});

test('bombs, endless redirects and slow servers end in their error codes while the crawl goes on', async () => {
  const base = (host: string, path: string) => `http://${host}.hostile.example/${path}`;
  const expected: [string, string | null][] = [
    [base('a', 'gzip-bomb'), 'too_large'],
    [base('b', 'br-bomb'), 'too_large'],
    [base('c', 'nested-bomb'), 'too_large'],
    [base('d', 'endless/0'), 'redirect_limit'],
    [base('e', 'slowloris'), 'timeout'],
    [base('f', 'silent'), 'timeout'],
    [base('g', 'ok'), null],
  ];
  const config = configFor(server.port, {
    maxBytes: 1024 * 1024,
    timeoutMs: 1000,
    maxAttempts: 1,
    concurrency: 8,
  });
  const { records, result } = await crawlSim(
    config,
    planFor(
      expected.map(([url]) => url),
      0,
    ),
  );
  assert.equal(result.complete, true);
  assert.deepEqual(
    expected.map(([url]) => [url, records.get(url)?.error ?? null]),
    expected,
  );
  assert.equal(records.get(base('g', 'ok'))?.statements, 1, 'the good document after the hostile ones');
  assert.equal(records.get(base('d', 'endless/0'))?.redirects.length, config.maxRedirects + 1);
});
