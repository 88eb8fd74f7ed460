import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { crawlConfig, MemoryBudget } from '../../pipeline/core/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { configFor, startServer, type TestServer } from './http-server.ts';

const TEXT = '<http://example.org/s> <http://example.org/p> "o" .\n'.repeat(200);
const LIMIT = 64 * 1024;

// [name, content-encoding, encoded body]
const ENCODINGS: [string, string, Buffer][] = [
  ['gzip', 'gzip', zlib.gzipSync(TEXT)],
  ['deflate (zlib)', 'deflate', zlib.deflateSync(TEXT)],
  ['deflate (raw, as some servers send it)', 'deflate', zlib.deflateRawSync(TEXT)],
  ['br', 'br', zlib.brotliCompressSync(TEXT)],
  ['gzip then br', 'gzip, br', zlib.brotliCompressSync(zlib.gzipSync(TEXT))],
  ['identity', 'identity', Buffer.from(TEXT)],
];
if (typeof zlib.zstdCompressSync === 'function')
  ENCODINGS.push(['zstd', 'zstd', zlib.zstdCompressSync(TEXT)]);

// A bomb: 1 GiB of zeros compresses to about 1 MiB (gzip) or a few hundred bytes (br).
const ZEROS = Buffer.alloc(16 * 1024 * 1024);
const GZIP_BOMB = zlib.gzipSync(ZEROS, { level: 9 });
const BR_BOMB = zlib.brotliCompressSync(ZEROS);

describe('one HTTP exchange', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/robots.txt') return void res.writeHead(404).end();
      const enc = /^\/enc\/(\d+)$/.exec(path);
      if (enc) {
        const [, coding, body] = ENCODINGS[Number(enc[1])];
        return void res.writeHead(200, { 'content-encoding': coding }).end(body);
      }
      if (path === '/bomb/gzip')
        return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(GZIP_BOMB);
      if (path === '/bomb/br') return void res.writeHead(200, { 'content-encoding': 'br' }).end(BR_BOMB);
      if (path === '/big') return void res.end(Buffer.alloc(LIMIT + 1));
      if (path === '/exact') return void res.end(Buffer.alloc(LIMIT));
      if (path === '/corrupt')
        return void res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all');
      if (path === '/unknown') return void res.writeHead(200, { 'content-encoding': 'compress' }).end('x');
      if (path === '/hang') return; // never answers
      if (path === '/trickle') {
        res.writeHead(200);
        const timer = setInterval(() => res.write('.'), 50); // always active, never done
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (path === '/reset') return void req.socket.destroy();
      if (path === '/reset-mid-body') {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('partial');
        return void setTimeout(() => req.socket.destroy(), 20);
      }
      res.end('ok');
    });
  });
  after(() => server.close());

  const get = async (path: string, overrides = {}) => {
    const fetcher = createFetcher(configFor(server.port, { maxBytes: LIMIT, maxAttempts: 1, ...overrides }));
    try {
      return await fetcher.fetchDocument(`http://a.example.org${path}`);
    } finally {
      await fetcher.close();
    }
  };

  ENCODINGS.forEach(([name], i) => {
    it(`decodes ${name}`, async () => {
      const result = await get(`/enc/${i}`);
      assert.equal(result.error, null);
      assert.equal(result.body?.toString(), TEXT);
    });
  });

  for (const kind of ['gzip', 'br']) {
    it(`stops a ${kind} bomb with too_large, without expanding it`, async () => {
      const heapBefore = process.memoryUsage().arrayBuffers;
      const result = await get(`/bomb/${kind}`);
      assert.equal(result.error, 'too_large');
      assert.equal(result.body, null);
      assert.ok(
        process.memoryUsage().arrayBuffers - heapBefore < 8 * 1024 * 1024,
        'the bomb was not expanded',
      );
    });
  }

  it('a body one byte over the limit is too_large; at the limit it is kept', async () => {
    assert.equal((await get('/big')).error, 'too_large');
    assert.equal((await get('/exact')).body?.length, LIMIT);
  });

  it('a body that does not decode is bad_encoding', async () => {
    assert.equal((await get('/corrupt')).error, 'bad_encoding');
  });

  it('an unknown Content-Encoding is bad_encoding', async () => {
    assert.equal((await get('/unknown')).error, 'bad_encoding');
  });

  it('a server that never answers is stopped by the whole-fetch timeout', async () => {
    const result = await get('/hang', { timeoutMs: 300 });
    assert.equal(result.error, 'timeout');
    assert.equal(result.status, null);
  });

  it('a server that trickles bytes forever is stopped by the whole-fetch timeout', async () => {
    const started = performance.now();
    const result = await get('/trickle', { timeoutMs: 400 });
    assert.equal(result.error, 'timeout');
    // the trickle never ends, so without the whole-fetch timeout this would never return; the bound
    // is 150x the timeout so that a loaded machine cannot fail it
    assert.ok(performance.now() - started < 60_000, 'idle timeouts alone would never fire');
  });

  it('a body that waits for the memory budget longer than the timeout is read whole, not a timeout', async () => {
    const budget = new MemoryBudget(1024);
    const byBytes = (_type: string | null, bytes: number) => bytes;
    const other = budget.lease(byBytes);
    other.settle(null, 1024); // another document holds the whole budget
    const lease = budget.lease(byBytes);
    const fetcher = createFetcher(
      configFor(server.port, { maxBytes: LIMIT, maxAttempts: 1, timeoutMs: 300 }),
    );
    try {
      const fetching = fetcher.fetchDocument(
        'http://a.example.org/exact',
        undefined,
        undefined,
        undefined,
        lease,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(budget.waiting, 1, 'the body did not wait for room');
      other.release();
      const result = await fetching;
      assert.equal(result.error, null, result.errorMessage ?? '');
      assert.equal(result.body?.length, LIMIT);
      assert.equal(lease.charged, LIMIT);
    } finally {
      await fetcher.close();
    }
  });

  it('a timeout is retried up to maxAttempts', async () => {
    const result = await get('/hang', { timeoutMs: 150, maxAttempts: 2 });
    assert.deepEqual([result.error, result.attempts], ['timeout', 2]);
  });

  it('a connection reset before the response is reset', async () => {
    assert.equal((await get('/reset')).error, 'reset');
  });

  it('a connection reset in the middle of the body is reset', async () => {
    const result = await get('/reset-mid-body', { maxAttempts: 2 });
    assert.deepEqual([result.error, result.attempts], ['reset', 2]);
  });

  it('a closed port is refused', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const fetcher = createFetcher(configFor(port, { maxAttempts: 1 }));
    const result = await fetcher.fetchDocument('http://a.example.org/doc');
    await fetcher.close();
    // robots.txt is the first request; nothing listens, so the document fails the same way
    assert.equal(result.error, 'refused');
    assert.equal(fetcher.stats().get('example.org')?.errors.refused, 1);
  });

  it('a host name that does not resolve is dns', async () => {
    const fetcher = createFetcher(crawlConfig({ delayMs: 0, timeoutMs: 3000 }));
    const result = await fetcher.fetchDocument('http://no-such-host.invalid/doc');
    await fetcher.close();
    assert.equal(result.error, 'dns');
  });
});
