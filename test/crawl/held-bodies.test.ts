import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  crawlConfig,
  MemoryBudget,
  parseResolveRule,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import { type CrawlFetcher, createCrawlTools, runCrawl } from '../../pipeline/crawl/index.ts';

/** 8 PLDs of 25 documents of ~40 KB each: several PLDs' fetches and parses overlap. */
const HOSTS = Array.from({ length: 8 }, (_, i) => `h${i}.org`);
const SEEDS = HOSTS.flatMap((h) => Array.from({ length: 25 }, (_, i) => `http://${h}/doc${i}`));

let server: Server;
let port: number;

before(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    const lines = Array.from(
      { length: 400 },
      (_, i) =>
        `<http://${host}${req.url}> <http://ex.org/p${i}> "value ${i} of a document large enough to parse" .`,
    );
    res.writeHead(200, { 'content-type': 'application/n-triples' }).end(lines.join('\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * Crawls every host's document with 64 slots through the real fetcher, wrapped to record, when each
 * fetch starts, how many fetched bodies the crawl still holds (returned by the fetcher, not yet in
 * the journal).
 */
async function crawlRecordingHeld(memoryBudget: MemoryBudget): Promise<number[]> {
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: 0,
    concurrency: 64,
  });
  const dir = mkdtempSync(join(tmpdir(), 'held-bodies-'));
  const tools = createCrawlTools(config, systemClock);
  let returned = 0;
  const heldAtStart: number[] = [];
  const journaled = () => {
    try {
      return readFileSync(join(dir, 'journal.ndjson'), 'utf8').split('{"t":"doc"').length - 1;
    } catch {
      return 0;
    }
  };
  const fetcher: CrawlFetcher = {
    readyAt: (pld) => tools.fetcher.readyAt(pld),
    delayFor: (pld) => tools.fetcher.delayFor(pld),
    async fetchDocument(url, signal, claim, validators, lease) {
      heldAtStart.push(returned - journaled());
      const result = await tools.fetcher.fetchDocument(url, signal, claim, validators, lease);
      returned++;
      return result;
    },
  };
  try {
    const result = await runCrawl({
      plan: {
        seeds: SEEDS,
        maxDepth: 0,
        maxRounds: 1,
        maxDocuments: Number.POSITIVE_INFINITY,
        segmentFor: () => 'kernel',
      },
      config,
      fetcher,
      loadContext: tools.loadContext,
      dir,
      clock: systemClock,
      logger: silentLogger,
      memoryBudget,
    });
    assert.equal(result.stats.documents, SEEDS.length);
    assert.equal(result.stats.statements, SEEDS.length * 400);
  } finally {
    tools.close();
  }
  return heldAtStart;
}

test('no fetch starts while fetched bodies over the memory budget wait to be parsed and journaled', async () => {
  // a budget of one byte: every body is over it, so a fetch starts only when none is held
  const held = await crawlRecordingHeld(new MemoryBudget(1));
  assert.equal(held.length, SEEDS.length);
  assert.deepEqual(
    held.filter((n) => n > 0),
    [],
    'a fetch started while another fetched body was still unjournaled',
  );
});
