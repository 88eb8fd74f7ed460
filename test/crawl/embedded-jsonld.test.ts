/**
 * JSON-LD embedded in HTML through a whole crawl, over real HTTP: the page names a remote context
 * whose URL answers HTML with a Link to its JSON-LD alternate, as https://schema.org does; the
 * crawl follows it through its own polite fetcher and the page's statements reach the journal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CrawledDocument } from '../../pipeline/core/index.ts';
import { crawlConfig, parseResolveRule, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { createCrawlTools, readJournalDocuments, runCrawl } from '../../pipeline/crawl/index.ts';
import { serializeNQuads } from '../../pipeline/rdf/index.ts';
import { alternateJsonLd } from '../../pipeline/web/index.ts';

const PAGE = `<!DOCTYPE html><html><head><title>Hammer</title>
<script type="application/ld+json">
{ "@context": "http://vocab.test/", "@type": "Product", "@id": "#hammer", "name": "Hammer" }
</script></head><body><p>A hammer.</p></body></html>`;

let server: Server;
let port: number;
const requests: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    requests.push(`${host}${req.url}`);
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    if (host === 'shop.test' && req.url === '/hammer') {
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    }
    if (host === 'vocab.test' && req.url === '/') {
      return void res
        .writeHead(200, {
          'content-type': 'text/html',
          link: '</docs/context.jsonld>; rel="alternate"; type="application/ld+json", </>; rel="canonical"',
        })
        .end('<html><body>the vocabulary, for people</body></html>');
    }
    if (host === 'vocab.test' && req.url === '/docs/context.jsonld') {
      return void res
        .writeHead(200, { 'content-type': 'application/ld+json' })
        .end(JSON.stringify({ '@context': { '@vocab': 'http://vocab.test/terms#' } }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("an HTML page's JSON-LD with a context behind a Link alternate is crawled into statements", async () => {
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'embedded-jsonld-'));
  const tools = createCrawlTools(config, systemClock);
  try {
    await runCrawl({
      plan: {
        seeds: ['http://shop.test/hammer'],
        maxDepth: 0,
        maxRounds: 1,
        maxDocuments: 1,
        segmentFor: () => 'kernel',
      },
      config,
      fetcher: tools.fetcher,
      loadContext: tools.loadContext,
      dir,
      clock: systemClock,
      logger: silentLogger,
    });
  } finally {
    await tools.close();
  }
  const documents: CrawledDocument[] = [];
  for await (const d of readJournalDocuments(dir, { logger: silentLogger })) documents.push(d);
  assert.equal(documents.length, 1);
  const [{ record, statements }] = documents;
  assert.equal(record.format, 'jsonld');
  assert.equal(record.error, null);
  const nquads = serializeNQuads(statements, record.finalUrl);
  assert.match(nquads, /<http:\/\/shop\.test\/hammer#hammer> <http:\/\/vocab\.test\/terms#name> "Hammer"/);
  assert.match(
    nquads,
    /<http:\/\/shop\.test\/hammer#hammer> <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type> <http:\/\/vocab\.test\/terms#Product>/,
  );
  // the context's URL once, then its alternate once, each after the host's robots.txt
  assert.deepEqual(
    requests.filter((r) => r.startsWith('vocab.test')),
    ['vocab.test/robots.txt', 'vocab.test/', 'vocab.test/docs/context.jsonld'],
  );
});

test('the JSON-LD alternate is the first link with rel alternate and type application/ld+json', () => {
  const base = 'https://schema.org/';
  assert.equal(
    alternateJsonLd(
      '<https://schema.org/docs/jsonldcontext.jsonld>; rel="alternate"; type="application/ld+json"',
      base,
    ),
    'https://schema.org/docs/jsonldcontext.jsonld',
  );
  assert.equal(
    alternateJsonLd(
      '</a.json>; rel="alternate"; type="application/json", </b, c.jsonld>; rel="meta alternate"; type=application/ld+json',
      base,
    ),
    'https://schema.org/b,%20c.jsonld',
  );
  assert.equal(alternateJsonLd('</x>; rel="canonical"', base), null);
  assert.equal(alternateJsonLd(undefined, base), null);
});
