import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MemoryBudget, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { createCrawlTools, runCrawl } from '../../pipeline/crawl/index.ts';
import { readCost } from '../../pipeline/rdf/index.ts';
import { configFor, smallestGaps, startServer, type TestServer } from '../web/http-server.ts';
import { journalRecords } from './sim-crawl.ts';

const MIB = 1024 * 1024;
const DELAY_MS = 150;
const TIMEOUT_MS = 3000;
const PARSE_MEMORY_MB = 192;

/** A Turtle document of ~`mib` MiB: few statements with long literals (quick to read, heavy to hold). */
function turtle(mib: number): Buffer {
  const lines = ['@prefix s: <http://schema.org/> .\n'];
  const text = 'a long description of the thing '.repeat(64);
  for (let i = 0; lines.length * text.length < mib * MIB; i++)
    lines.push(`<#r${i}> s:description "${text}${i}" .\n`);
  return Buffer.from(lines.join(''));
}

/** An HTML page of ~`mib` MiB publishing RDFa: long texts in a few elements. */
function rdfa(mib: number): Buffer {
  const parts = ['<!DOCTYPE html><html prefix="s: http://schema.org/"><head><title>t</title></head><body>\n'];
  const text = 'a long description of the thing '.repeat(64);
  for (let i = 0; parts.length * text.length < mib * MIB; i++) {
    parts.push(`<div about="#r${i}" typeof="s:Thing"><p property="s:description">${text}${i}</p></div>\n`);
  }
  parts.push('</body></html>\n');
  return Buffer.from(parts.join(''));
}

/**
 * 24 PLDs of two documents each, alternating Turtle (4 MiB) and RDFa (1.5 MiB) from PLD to PLD;
 * every other PLD sends its bodies chunked, without Content-Length, in 64 KiB writes.
 */
const PLDS = Array.from({ length: 24 }, (_, i) => `p${i}.org`);
const BODIES = { turtle: turtle(4), rdfa: rdfa(1.5) };
const TYPES = { turtle: 'text/turtle', rdfa: 'text/html' };
const kindOf = (pld: string) => (Number(pld.slice(1, -4)) % 2 === 0 ? 'turtle' : 'rdfa');
const chunked = (pld: string) => Number(pld.slice(1, -4)) % 4 >= 2;
const SEEDS = PLDS.flatMap((pld) => [`http://${pld}/a`, `http://${pld}/b`]);

let server: TestServer;

function send(res: ServerResponse, body: Buffer, type: string, withLength: boolean): void {
  if (withLength)
    return void res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
  res.writeHead(200, { 'content-type': type });
  let at = 0;
  const more = () => {
    while (at < body.length) {
      const piece = body.subarray(at, at + 64 * 1024);
      at += piece.length;
      if (!res.write(piece)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

before(async () => {
  server = await startServer((req, res) => {
    const pld = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    const kind = kindOf(pld);
    send(res, BODIES[kind], TYPES[kind], !chunked(pld));
  });
});

after(() => server.close());

test('24 PLDs of large bodies at once: what is charged never passes the budget, and every document is read whole', async () => {
  const limit = 256 * MIB;
  const costs = SEEDS.map((url) => {
    const kind = kindOf(new URL(url).hostname);
    return readCost(TYPES[kind], BODIES[kind].length, PARSE_MEMORY_MB);
  });
  assert.ok(
    costs.every((c) => c < limit),
    'each document fits the budget alone (none is let past it)',
  );
  assert.ok(costs.reduce((a, b) => a + b) > 10 * limit, 'together they are many times the budget');

  const budget = new MemoryBudget(limit);
  const config = configFor(server.port, {
    delayMs: DELAY_MS,
    timeoutMs: TIMEOUT_MS,
    maxBytes: 8 * MIB,
    parseMemoryMb: PARSE_MEMORY_MB,
  });
  const dir = mkdtempSync(join(tmpdir(), 'memory-budget-'));
  const tools = createCrawlTools(config, systemClock);
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
      fetcher: tools.fetcher,
      loadContext: tools.loadContext,
      dir,
      clock: systemClock,
      logger: silentLogger,
      memoryBudget: budget,
    });
    assert.equal(result.stats.documents, SEEDS.length);
  } finally {
    await tools.close();
  }

  assert.ok(
    budget.peak <= limit,
    `charged ${(budget.peak / MIB).toFixed(1)} MiB at once, over ${limit / MIB}`,
  );
  assert.equal(budget.overdrawn, 0);
  assert.equal(budget.used, 0, 'every lease was given back');
  assert.ok(budget.waited > 0, 'no body waited: the budget was never reached');

  const records = await journalRecords(dir);
  for (const url of SEEDS) {
    const record = records.get(url);
    const kind = kindOf(new URL(url).hostname);
    assert.equal(record?.status, 200, url);
    assert.equal(record.error, null, `${url}: ${record.errorMessage}`);
    assert.equal(record.bytes, BODIES[kind].length, `${url} was not read whole`);
    assert.equal(record.format, kind, url);
  }
  const gaps = smallestGaps(server.seen);
  assert.equal(gaps.size, PLDS.length);
  for (const [pld, gap] of gaps)
    assert.ok(gap >= DELAY_MS, `${pld}: two requests ${gap.toFixed(1)} ms apart`);
});
