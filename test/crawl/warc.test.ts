import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { warcFilesIn } from '../../pipeline/archive/index.ts';
import { type CrawlConfig, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { createCrawlTools, JOURNAL_FILE, runCrawl } from '../../pipeline/crawl/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { httpPayload, pointedRecord, readWithNodeWarc, splitRecord } from '../archive/warc-reader.ts';
import { journalRecords, planFor, simConfig } from './sim-crawl.ts';

let sim: SimWeb;

before(async () => {
  sim = await startSimWeb({ seed: 8, docs: 400, plds: 20, latencyScale: 0 });
});
after(() => sim.close());

/** Runs a crawl of the simulated Web's core seeds that archives into `<dir>/warc`. */
async function archivedCrawl(dir: string, config: CrawlConfig): Promise<void> {
  const tools = createCrawlTools(config, systemClock, { dir: join(dir, 'warc'), prefix: 'crawl' });
  try {
    await runCrawl({
      plan: planFor(sim.coreSeeds, 1),
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
}

/** The body the crawler decoded, from the payload as the server sent it. */
function decoded(payload: Buffer, contentEncoding: string | undefined): Buffer {
  let body = payload;
  for (const coding of (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') body = zlib.gunzipSync(body);
    else if (coding === 'br') body = zlib.brotliDecompressSync(body);
    else if (coding === 'deflate')
      body = body[0] === 0x78 ? zlib.inflateSync(body) : zlib.inflateRawSync(body);
  }
  return body;
}

const httpHeader = (block: Buffer, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, 'i').exec(
    block.subarray(0, block.indexOf('\r\n\r\n') + 2).toString('latin1'),
  )?.[1];

test('a crawl archives exactly its responses, and every journal pointer opens its document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crawl-warc-'));
  sim.clearRequestLog();
  await archivedCrawl(
    dir,
    simConfig(sim, {
      delayMs: 5,
      concurrency: 16,
      // a fetch that times out on a loaded machine archives less: generous, so the files still roll
      timeoutMs: 10_000,
      crawlDelayCapMs: 50,
      warcFileBytes: 64 * 1024,
    }),
  );
  const log = sim.requestLog();
  const answered = log.filter((entry) => entry.status !== null);

  const files = warcFilesIn(join(dir, 'warc'));
  assert.ok(files.length > 1, 'a 64 KiB file size rolls over');
  const records = (await Promise.all(files.map((f) => readWithNodeWarc(join(dir, 'warc', f))))).flat();
  const responses = records.filter((r) => r.warcHeader['WARC-Type'] === 'response');
  const key = (url: string, status: unknown) =>
    `${new URL(url).host}${new URL(url).pathname}${new URL(url).search} ${status}`;
  assert.deepEqual(
    responses.map((r) => key(r.warcHeader['WARC-Target-URI'], Number(r.httpInfo?.statusCode))).sort(),
    answered.map((e) => key(`http://${e.host}${e.path}`, e.status)).sort(),
  );

  const journal = await journalRecords(dir);
  let opened = 0;
  for (const record of journal.values()) {
    if (record.downloadedBy !== undefined || record.status === null) {
      assert.equal(record.warcFilename ?? null, null, `${record.url} points nowhere of its own`);
      continue;
    }
    assert.ok(
      record.warcFilename && record.warcOffset != null && record.warcLength,
      `${record.url} has a pointer`,
    );
    const { record: bytes } = pointedRecord(join(dir, 'warc'), {
      filename: record.warcFilename,
      offset: record.warcOffset,
      length: record.warcLength,
    });
    const warc = splitRecord(bytes);
    assert.equal(warc.rest.toString(), '\r\n\r\n', 'the pointer spans exactly one record');
    assert.equal(warc.headers.get('warc-type'), 'response');
    assert.equal(warc.headers.get('warc-target-uri'), record.finalUrl);
    assert.equal(Number(/^HTTP\/1\.1 (\d{3})/.exec(warc.block.toString('latin1'))?.[1]), record.status);
    if (record.contentSha256 !== null) {
      const body = decoded(httpPayload(warc.block), httpHeader(warc.block, 'content-encoding'));
      assert.equal(createHash('sha256').update(body).digest('hex'), record.contentSha256, record.url);
      opened++;
    }
  }
  assert.ok(opened > 20, `documents checked through their pointers: ${opened}`);
  assert.ok(
    records.some((r) => r.warcHeader['WARC-Type'] === 'request'),
    'request records are there too',
  );
  const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
  assert.match(lines, /"warcFilename":"crawl-00000\.warc\.gz"/);

  // a journal written before the archive existed: the same lines without the pointer fields
  const old = mkdtempSync(join(tmpdir(), 'crawl-old-journal-'));
  writeFileSync(join(old, JOURNAL_FILE), lines.replace(/,"warc(Filename|Offset|Length)":[^,}]*/g, ''));
  assert.doesNotMatch(readFileSync(join(old, JOURNAL_FILE), 'utf8'), /"warc/);
  const upgraded = await journalRecords(old);
  assert.equal(upgraded.size, journal.size);
  for (const record of upgraded.values()) assert.equal(record.warcFilename ?? null, null);
});

test('--no-warc (config.warc false) keeps no archive', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crawl-nowarc-'));
  const tools = createCrawlTools(
    simConfig(sim, { warc: false, delayMs: 5, crawlDelayCapMs: 50 }),
    systemClock,
    {
      dir: join(dir, 'warc'),
      prefix: 'crawl',
    },
  );
  const fetched = await tools.fetcher.fetchDocument(sim.coreSeeds[0]);
  await tools.close();
  assert.equal(tools.archive, null);
  assert.equal(fetched.warc, undefined);
  assert.equal(existsSync(join(dir, 'warc')), false);
});
