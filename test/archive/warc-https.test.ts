import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openCrawlArchive, warcFilesIn } from '../../pipeline/archive/index.ts';
import { crawlConfig, parseResolveRule } from '../../pipeline/core/index.ts';
import { type SimWeb, startSimWeb, TLS_SCENARIOS } from '../../pipeline/simweb/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { httpPayload, pointedRecord, readWithNodeWarc, splitRecord } from './warc-reader.ts';

let sim: SimWeb;
before(async () => {
  sim = await startSimWeb({ seed: 4, docs: 100, plds: 10, latencyScale: 0, faults: 0, https: true });
});
after(() => sim.close());

test('exchanges over TLS and an http -> https upgrade are archived like plain ones', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'warc-https-'));
  const config = crawlConfig({
    resolve: sim.resolveRules.map(parseResolveRule),
    caCertificates: [sim.caPem!],
    allowPrivate: true,
    delayMs: 10,
    timeoutMs: 2000,
  });
  const archive = openCrawlArchive({ dir, prefix: 'tls', config, now: () => Date.now() });
  const fetcher = createFetcher(config, undefined, { observers: [archive] });
  const fetched = [];
  try {
    for (const name of ['tls-ok', 'tls-upgrade']) {
      const result = await fetcher.fetchDocument(TLS_SCENARIOS[name].url);
      fetched.push({ result, pointer: await archive.pointerOf(result.responseId) });
    }
  } finally {
    await fetcher.close();
    await archive.close();
  }
  for (const { result, pointer } of fetched) {
    assert.equal(result.error, null, result.errorMessage ?? '');
    assert.ok(result.finalUrl.startsWith('https://'));
    const record = splitRecord(pointedRecord(dir, pointer!).record);
    assert.equal(record.headers.get('warc-target-uri'), result.finalUrl);
    assert.equal(record.headers.get('warc-ip-address'), '127.0.0.1');
    assert.deepEqual(httpPayload(record.block), result.body);
  }
  const records = (await Promise.all(warcFilesIn(dir).map((f) => readWithNodeWarc(join(dir, f))))).flat();
  const targets = records
    .filter((r) => r.warcHeader['WARC-Type'] === 'request')
    .map((r) => new URL(r.warcHeader['WARC-Target-URI']).protocol);
  assert.ok(targets.includes('http:') && targets.includes('https:'), `both schemes archived: ${targets}`);
});
