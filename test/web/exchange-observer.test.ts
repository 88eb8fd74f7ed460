import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { createFetcher, type ExchangeRecord } from '../../pipeline/web/index.ts';
import { configFor, startServer, type TestServer } from './http-server.ts';

const TURTLE = Buffer.from('<http://a.example.org/doc> <http://example.org/p> "été" .\n'.repeat(200));
const GZIPPED = zlib.gzipSync(TURTLE);

function route(req: IncomingMessage, res: ServerResponse, flaky: { calls: number }): void {
  const path = req.url ?? '/';
  if (path === '/robots.txt')
    return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\n');
  if (path === '/start') return void res.writeHead(303, { Location: '/middle' }).end();
  if (path === '/middle') return void res.writeHead(302, { Location: '/doc' }).end();
  if (path === '/doc') {
    // two writes and no length: sent chunked, which the record must not keep as chunked
    res.writeHead(200, { 'Content-Type': 'text/turtle', 'Content-Encoding': 'gzip', 'X-Mixed-Case': 'Yes' });
    res.write(GZIPPED.subarray(0, 100));
    return void res.end(GZIPPED.subarray(100));
  }
  if (path === '/flaky') {
    flaky.calls++;
    if (flaky.calls === 1) return void res.writeHead(503, 'Busy Now', { 'Retry-After': '0' }).end('later');
    return void res.writeHead(200, { 'Content-Type': 'text/turtle' }).end('<a:b> <a:c> <a:d> .\n');
  }
  res.writeHead(404).end();
}

const body = (r: ExchangeRecord) => Buffer.concat(r.response?.body ?? []);
const header = (r: ExchangeRecord, name: string) =>
  r.response?.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

describe('exchange observers', () => {
  let server: TestServer;
  const flaky = { calls: 0 };
  before(async () => {
    server = await startServer((req, res) => route(req, res, flaky));
  });
  after(() => server.close());

  const observe = async (url: string) => {
    const records: ExchangeRecord[] = [];
    const fetcher = createFetcher(configFor(server.port, { maxAttempts: 2 }), undefined, {
      observers: [{ exchanged: (record) => records.push(record) }],
    });
    try {
      const result = await fetcher.fetchDocument(url);
      return { records, result, stats: fetcher.stats() };
    } finally {
      await fetcher.close();
    }
  };

  it('sees robots.txt, each redirect hop and the final response, in order, as sent and received', async () => {
    const before = server.seen.length;
    const { records, result } = await observe('http://a.example.org/start');
    const paths = server.seen.slice(before).map((s) => s.path);
    assert.deepEqual(paths, ['/robots.txt', '/start', '/middle', '/doc']);
    assert.deepEqual(
      records.map((r) => [new URL(r.url).pathname, r.response?.status, r.robots]),
      [
        ['/robots.txt', 200, true],
        ['/start', 303, false],
        ['/middle', 302, false],
        ['/doc', 200, false],
      ],
    );
    assert.deepEqual(
      records.map((r) => r.id),
      [1, 2, 3, 4],
    );
    for (const r of records) {
      assert.equal(r.remoteAddress, '127.0.0.1');
      const path = new URL(r.url).pathname;
      assert.ok(r.requestHead?.startsWith(`GET ${path} HTTP/1.1\r\nhost: a.example.org\r\n`));
      assert.ok(r.requestHead?.endsWith('\r\n\r\n'));
      assert.match(r.requestHead ?? '', /\r\nuser-agent: LinkedDataObservatory\//);
    }
    const doc = records[3];
    assert.equal(result.responseId, doc.id);
    assert.equal(doc.response?.statusText, 'OK');
    assert.equal(header(doc, 'X-Mixed-Case'), 'Yes');
    assert.ok(
      doc.response?.headers.some(([n]) => n === 'X-Mixed-Case'),
      'header names keep their case',
    );
    assert.equal(header(doc, 'Transfer-Encoding'), 'chunked');
    // the body as it came over the wire: still gzip, and it decodes to what the crawler got
    assert.deepEqual(body(doc), GZIPPED);
    assert.deepEqual(zlib.gunzipSync(body(doc)), result.body);
    assert.equal(doc.response?.truncated, null);
    assert.equal(doc.decodedBytes, TURTLE.length);
    assert.equal(header(records[1], 'Location'), '/middle');
  });

  it('sees both attempts of a retried 503, and the PLD statistics are built from the same records', async () => {
    const { records, result, stats } = await observe('http://b.example.org/flaky');
    assert.deepEqual(
      records.map((r) => [new URL(r.url).pathname, r.response?.status]),
      [
        ['/robots.txt', 200],
        ['/flaky', 503],
        ['/flaky', 200],
      ],
    );
    assert.equal(records[1].response?.statusText, 'Busy Now');
    assert.equal(body(records[1]).toString(), 'later');
    assert.equal(result.status, 200);
    assert.equal(result.responseId, records[2].id);
    const b = stats.get('example.org');
    assert.equal(b?.requests, 3);
    assert.equal(b?.robotsRequests, 1);
    assert.deepEqual(b?.statuses, { '200': 2, '503': 1 });
  });

  it('reports a refused connection without a response', async () => {
    const records: ExchangeRecord[] = [];
    const fetcher = createFetcher(configFor(1, { maxAttempts: 1 }), undefined, {
      observers: [{ exchanged: (record) => records.push(record) }],
    });
    try {
      const result = await fetcher.fetchDocument('http://c.example.org/x');
      assert.equal(result.responseId, null);
    } finally {
      await fetcher.close();
    }
    assert.ok(records.length > 0);
    for (const r of records) {
      assert.equal(r.response, null);
      assert.equal(r.error, 'refused');
    }
  });
});
