import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import {
  type CrawlArchive,
  cdxjEntries,
  openCrawlArchive,
  warcFilesIn,
} from '../../pipeline/archive/index.ts';
import type { CrawlConfig, FetchResult, WarcPointer } from '../../pipeline/core/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';
import {
  httpPayload,
  indexerLines,
  pointedRecord,
  readWithNodeWarc,
  sha256,
  splitRecord,
} from './warc-reader.ts';

const TURTLE = Buffer.from('<http://a.example.org/s> <http://example.org/p> "o" .\n'.repeat(300));

function route(req: IncomingMessage, res: ServerResponse, flaky: Map<string, number>): void {
  const path = req.url ?? '/';
  if (path === '/robots.txt') return void res.end('User-agent: *\n');
  if (path.startsWith('/see/')) return void res.writeHead(303, { Location: `/doc/${path.slice(5)}` }).end();
  if (path.startsWith('/flaky/')) {
    const calls = (flaky.get(path) ?? 0) + 1;
    flaky.set(path, calls);
    if (calls === 1) return void res.writeHead(503).end('busy');
  }
  const text = Buffer.concat([Buffer.from(`# ${path}\n`), TURTLE]);
  if (path.startsWith('/gz/')) {
    return void res
      .writeHead(200, { 'Content-Type': 'text/turtle', 'Content-Encoding': 'gzip' })
      .end(zlib.gzipSync(text));
  }
  res.writeHead(200, { 'Content-Type': 'text/turtle' }).end(text);
}

const URLS = [
  'http://a.example.org/doc/1',
  'http://a.example.org/see/2',
  'http://a.example.org/gz/3',
  'http://b.example.net/flaky/4',
  'http://b.example.net/gz/5',
  'http://c.example.com/doc/6',
];

interface Archived {
  readonly fetched: FetchResult;
  readonly pointer: WarcPointer | null;
}

/** Fetches `urls` one after the other through a fetcher that archives into `dir`. */
async function crawlInto(dir: string, config: CrawlConfig, urls: readonly string[]): Promise<Archived[]> {
  const archive: CrawlArchive = openCrawlArchive({ dir, prefix: 'test', config, now: () => Date.now() });
  const fetcher = createFetcher(config, undefined, { observers: [archive] });
  const out: Archived[] = [];
  try {
    for (const url of urls) {
      const fetched = await fetcher.fetchDocument(url);
      out.push({ fetched, pointer: await archive.pointerOf(fetched.responseId) });
    }
  } finally {
    await fetcher.close();
    await archive.close();
  }
  return out;
}

describe('WARC archive of a fetcher', () => {
  let server: TestServer;
  let config: CrawlConfig;
  let dir: string;
  let archived: Archived[];
  const flaky = new Map<string, number>();
  before(async () => {
    server = await startServer((req, res) => route(req, res, flaky));
    // a few KiB per file, so that a handful of documents roll over
    config = configFor(server.port, { maxAttempts: 2, warcFileBytes: 4096 });
    dir = mkdtempSync(join(tmpdir(), 'warc-'));
    archived = await crawlInto(dir, config, URLS);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rolls over into numbered files, each opening with a warcinfo record', async () => {
    const files = warcFilesIn(dir);
    assert.ok(files.length > 1, `expected several files, got ${files}`);
    assert.deepEqual(
      files,
      files.map((_, i) => `test-${String(i).padStart(5, '0')}.warc.gz`),
    );
    for (const file of files) {
      const [first] = await readWithNodeWarc(join(dir, file));
      assert.equal(first.warcHeader['WARC-Type'], 'warcinfo');
      assert.equal(first.warcHeader['WARC-Filename'], file);
      const info = first.content?.toString() ?? '';
      assert.match(info, /software: LinkedDataObservatory\/\d/);
      assert.match(info, /http-header-user-agent: LinkedDataObservatory\//);
      assert.match(info, /"warcFileBytes":4096/);
    }
  });

  it('holds one response and one request record per exchange the server answered, tied together', async () => {
    const records = (await Promise.all(warcFilesIn(dir).map((f) => readWithNodeWarc(join(dir, f))))).flat();
    const responses = records.filter((r) => r.warcHeader['WARC-Type'] === 'response');
    const requests = records.filter((r) => r.warcHeader['WARC-Type'] === 'request');
    assert.equal(responses.length, server.seen.length);
    assert.equal(requests.length, server.seen.length);
    assert.deepEqual(
      responses.map((r) => new URL(r.warcHeader['WARC-Target-URI']).pathname).sort(),
      server.seen.map((s) => s.path).sort(),
    );
    const byId = new Map(responses.map((r) => [r.warcHeader['WARC-Record-ID'], r]));
    for (const request of requests) {
      const response = byId.get(request.warcHeader['WARC-Concurrent-To']);
      assert.ok(response, 'the request names its response');
      assert.equal(request.warcHeader['WARC-Target-URI'], response.warcHeader['WARC-Target-URI']);
      assert.equal(request.warcHeader['WARC-IP-Address'], '127.0.0.1');
      assert.equal(response.warcHeader['WARC-IP-Address'], '127.0.0.1');
      assert.match(response.warcHeader['WARC-Date'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    const statuses = responses.map((r) => Number(r.httpInfo?.statusCode));
    assert.ok(statuses.includes(503) && statuses.includes(303), `retries and hops archived: ${statuses}`);
  });

  it('every record carries true sha256 block and payload digests, a GET request no payload digest', async () => {
    for (const file of warcFilesIn(dir)) {
      const members = zlib.gunzipSync(readFileSync(join(dir, file)));
      // the decompressed file is the records back to back; split each by its Content-Length
      let rest: Buffer = members;
      let count = 0;
      while (rest.length > 0) {
        const record = splitRecord(rest);
        assert.equal(rest.subarray(0, 9).toString(), 'WARC/1.1\r');
        const type = record.headers.get('warc-type');
        if (type !== 'warcinfo') {
          assert.equal(record.headers.get('warc-block-digest'), sha256(record.block));
          // WARC/1.1 5.9: no payload digest on a record without a payload
          const payload = httpPayload(record.block);
          assert.equal(
            record.headers.get('warc-payload-digest'),
            type === 'request' && payload.length === 0 ? undefined : sha256(payload),
          );
        }
        assert.equal(record.rest.subarray(0, 4).toString(), '\r\n\r\n');
        rest = record.rest.subarray(4);
        count++;
      }
      assert.ok(count >= 2);
    }
  });

  it('points each fetch at exactly its final response, whose body decodes to what the crawler read', () => {
    for (const { fetched, pointer } of archived) {
      assert.ok(pointer, `${fetched.url} has a pointer`);
      const { record } = pointedRecord(dir, pointer);
      const split = splitRecord(record);
      // exactly one record in the slice: nothing but the closing CRLFs after its block
      assert.equal(split.rest.toString(), '\r\n\r\n');
      assert.equal(split.headers.get('warc-type'), 'response');
      assert.equal(split.headers.get('warc-target-uri'), fetched.finalUrl);
      const payload = httpPayload(split.block);
      const gzipped = /\r\ncontent-encoding: gzip\r\n/i.test(split.block.toString('latin1'));
      assert.equal(gzipped, fetched.url.includes('/gz/'));
      assert.deepEqual(gzipped ? zlib.gunzipSync(payload) : payload, fetched.body);
    }
    assert.equal(archived[3].fetched.attempts, 2, 'the flaky document was retried');
  });

  it('indexes every response in CDXJ lines that point at the right records', async () => {
    const lines: string[] = [];
    for await (const line of cdxjEntries(dir, warcFilesIn(dir))) lines.push(line);
    assert.equal(lines.length, server.seen.length);
    for (const line of lines) {
      const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
      assert.ok(m, line);
      const entry = JSON.parse(m[3]);
      assert.ok(m[1].startsWith(`${new URL(entry.url).hostname.split('.').reverse().join(',')})/`), m[1]);
      const { record } = pointedRecord(dir, {
        filename: entry.filename,
        offset: Number(entry.offset),
        length: Number(entry.length),
      });
      const split = splitRecord(record);
      assert.equal(split.headers.get('warc-target-uri'), entry.url);
      assert.equal(`sha256:${entry.digest}`, split.headers.get('warc-payload-digest'));
      assert.equal(Number(entry.status), Number(/^HTTP\/1\.1 (\d{3})/.exec(split.block.toString())?.[1]));
    }
    const pointed = archived.map((a) => `${a.pointer?.filename}@${a.pointer?.offset}`);
    const indexed = lines.map((l) => {
      const e = JSON.parse(l.slice(l.indexOf('{')));
      return `${e.filename}@${e.offset}`;
    });
    for (const p of pointed) assert.ok(indexed.includes(p), `${p} is indexed`);
    // the lines (from the index notes the crawl wrote) must be those Webrecorder's indexer writes
    // when it reads the gzipped files itself
    assert.deepEqual(lines, await indexerLines(dir, warcFilesIn(dir)));
  });

  it('cuts a torn last record after a crash and goes on writing whole records', async () => {
    const files = warcFilesIn(dir);
    const last = join(dir, files.at(-1)!);
    const whole = statSync(last).size;
    // a crash in the middle of a write: half a gzip member at the end of the last file
    const member = zlib.gzipSync(Buffer.from(`WARC/1.1\r\nWARC-Type: response\r\n${'x'.repeat(5000)}`));
    appendFileSync(last, member.subarray(0, member.length >> 1));
    const more = await crawlInto(dir, config, ['http://c.example.com/doc/7']);
    assert.equal(statSync(last).size >= whole, true);
    for (const file of warcFilesIn(dir)) {
      const records = await readWithNodeWarc(join(dir, file));
      assert.ok(records.every((r) => r.warcHeader['WARC-Type'] !== undefined));
      // the whole file decompresses: no torn member is left anywhere
      assert.doesNotThrow(() => zlib.gunzipSync(readFileSync(join(dir, file))), file);
    }
    const { record } = pointedRecord(dir, more[0].pointer!);
    assert.equal(splitRecord(record).headers.get('warc-target-uri'), 'http://c.example.com/doc/7');
    const lastBytes = readFileSync(last);
    assert.equal(
      lastBytes.subarray(whole, whole + 2).toString('hex'),
      whole < lastBytes.length ? '1f8b' : '',
    );
  });
});
