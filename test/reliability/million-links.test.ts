import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { crawlConfig, parseResolveRule } from '../../pipeline/core/index.ts';
import { readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { crawlInto } from '../crawl/sim-crawl.ts';

const LINKS = 1_000_000;

test('a document with a million links is kept whole, but adds at most maxLinksPerDocument URLs to the frontier', async () => {
  const lines = [
    '@prefix x: <http://many.example/item/> .',
    '<http://many.example/doc> <http://many.example/p> ',
  ];
  const objects: string[] = [];
  for (let i = 0; i < LINKS; i++) objects.push(`x:${i}`);
  const body = `${lines.join('\n')}${objects.join(', ')} .\n`;
  const server = createServer((req, res) => {
    if (req.url === '/doc') res.writeHead(200, { 'content-type': 'text/turtle' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: 1,
    maxLinksPerDocument: 5000,
    // a million statements need more than a parse worker's default heap (docs/rdf.md, Memory bound)
    parseMemoryMb: 1024,
  });
  const dir = mkdtempSync(join(tmpdir(), 'million-'));
  try {
    const result = await crawlInto(dir, config, {
      seeds: ['http://many.example/doc'],
      maxDepth: 1,
      maxRounds: 2,
      maxDocuments: 3,
      segmentFor: (d) => (d === 0 ? 'kernel' : 'adaptive'),
    });
    assert.equal(result.complete, true);
    assert.ok(result.seen <= 5000 + 1, `the frontier knew ${result.seen} URLs`);
    const docs = [];
    for await (const d of readJournalDocuments(dir)) docs.push(d.record);
    assert.equal(docs[0].statements, LINKS, 'the data keeps every statement');
    assert.equal(docs.length, 3, 'the budget of 3 documents holds');
  } finally {
    server.close();
  }
});
