import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CrawlCliOptions, crawlSetup } from '../../pipeline/commands/crawl-options.ts';
import {
  type CrawlConfig,
  crawlConfig,
  ObservatoryError,
  parseResolveRule,
} from '../../pipeline/core/index.ts';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import { type SimWeb, startSimWeb, TLS_SCENARIOS } from '../../pipeline/simweb/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { crawlSim, planFor, politenessViolations } from '../crawl/sim-crawl.ts';

/** The crawler over real TLS against the simulated Web's test CA and broken-TLS hosts. */
let sim: SimWeb;
before(async () => {
  sim = await startSimWeb({ seed: 9, docs: 1200, plds: 60, latencyScale: 0, faults: 0, https: true });
});
after(() => sim.close());

/** Routed to both ports, trusting the test CA; a stalled handshake gives up after `timeoutMs`. */
function tlsConfig(over: Partial<CrawlConfig> = {}): CrawlConfig {
  return crawlConfig({
    resolve: sim.resolveRules.map(parseResolveRule),
    caCertificates: [sim.caPem!],
    allowPrivate: true,
    delayMs: 10,
    timeoutMs: 2000,
    ...over,
  });
}

/** A data PLD that serves the same documents on both schemes (no redirect to https) with several documents. */
function bothSchemesPld() {
  const p = sim.web.plds.find(
    (x) => x.kind === 'data' && !x.httpsRedirect && x.style === 'direct' && x.docCount >= 6,
  );
  assert.ok(p);
  return p;
}

test('every TLS scenario gives its catalogued status, error, final URL and hops; the crawl goes on', async () => {
  const fetcher = createFetcher(tlsConfig());
  try {
    const results = await Promise.all(Object.values(TLS_SCENARIOS).map((s) => fetcher.fetchDocument(s.url)));
    for (const [i, s] of Object.values(TLS_SCENARIOS).entries()) {
      const r = results[i];
      assert.deepEqual(
        { status: r.status, error: r.error, finalUrl: r.finalUrl, redirects: r.redirects.length },
        {
          status: s.expect.status,
          error: s.expect.error,
          finalUrl: s.expect.finalUrl,
          redirects: s.expect.redirects,
        },
        `${s.name}: ${r.errorMessage}`,
      );
    }
    const stalled = results[Object.keys(TLS_SCENARIOS).indexOf('tls-stall')];
    assert.match(stalled.errorMessage ?? '', /robots\.txt.*(within|time)/i);
    // after all of that the same fetcher still fetches
    assert.equal((await fetcher.fetchDocument(TLS_SCENARIOS['tls-ok'].url)).status, 200);
  } finally {
    await fetcher.close();
  }
});

test('without the test CA the valid certificate is untrusted: caCertificates is what trusts it', async () => {
  const fetcher = createFetcher(tlsConfig({ caCertificates: [] }));
  try {
    const r = await fetcher.fetchDocument(TLS_SCENARIOS['tls-ok'].url);
    assert.equal(r.error, 'tls_untrusted');
  } finally {
    await fetcher.close();
  }
});

test('a crawl over https gives the same documents and statements as over http', async () => {
  const p = bothSchemesPld();
  const urls = Array.from({ length: 6 }, (_, i) => docAddress(sim.web, p.docStart + i).docUrl);
  const plain = await crawlSim(tlsConfig(), planFor(urls, 0));
  const secureUrls = urls.map((u) => u.replace(/^http:/, 'https:'));
  const secure = await crawlSim(tlsConfig(), planFor(secureUrls, 0));
  let rdf = 0;
  for (const [i, url] of urls.entries()) {
    const a = plain.records.get(url)!;
    const b = secure.records.get(secureUrls[i])!;
    assert.deepEqual(
      [b.status, b.error, b.statements, b.graphHash],
      [a.status, a.error, a.statements, a.graphHash],
      url,
    );
    if (a.statements > 0) rdf++;
  }
  assert.ok(rdf >= 3, `${rdf} RDF documents`);
});

test('http->https redirects are followed and recorded as hops', async () => {
  const record = sim.truth().find((r) => r.pld === 'dbpedia.org' && r.kind === 'document' && r.rdf)!;
  const { records } = await crawlSim(tlsConfig(), planFor([record.uri], 0));
  const r = records.get(record.uri)!;
  assert.equal(r.error, null);
  assert.equal(r.finalUrl, record.finalUrl);
  assert.match(r.finalUrl, /^https:/);
  assert.deepEqual(
    r.redirects.map((h) => [h.status, h.from, h.to]),
    [
      [301, record.uri, record.uri.replace(/^http:/, 'https:')],
      [303, record.uri.replace(/^http:/, 'https:'), record.finalUrl],
    ],
  );
  assert.equal(r.statements, record.statements);
});

test('robots.txt is fetched once per scheme and authority, and politeness holds across schemes', async () => {
  const p = bothSchemesPld();
  const urls = Array.from({ length: 6 }, (_, i) => docAddress(sim.web, p.docStart + i).docUrl);
  const mixed = urls.map((u, i) => (i % 2 ? u.replace(/^http:/, 'https:') : u));
  sim.clearRequestLog();
  const delayMs = 150;
  await crawlSim(tlsConfig({ delayMs }), planFor(mixed, 0));
  const log = sim.requestLog().filter((e) => e.pld === p.domain);
  const robots = log.filter((e) => e.path === '/robots.txt').map((e) => `${e.scheme}://${e.host}`);
  const authorities = [...new Set(mixed.map((u) => new URL(u).origin))];
  assert.deepEqual(robots.sort(), authorities.sort());
  assert.ok(new Set(log.map((e) => e.scheme)).size === 2);
  assert.deepEqual(politenessViolations(log, delayMs), []);
});

test('the address guard holds for https: a host resolving to 127.0.0.1 is refused without allowPrivate', async () => {
  const url = TLS_SCENARIOS['tls-ok'].url;
  sim.clearRequestLog();
  const { records } = await crawlSim(tlsConfig({ allowPrivate: false }), planFor([url], 0));
  assert.equal(records.get(url)?.error, 'blocked_address');
  assert.deepEqual(sim.requestLog(), []);
});

test('--ca-file reads every PEM certificate of a bundle and refuses a missing or certificate-less file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ca-file-'));
  const cli: CrawlCliOptions = {
    resolve: sim.resolveRules.slice(),
    allowPrivate: true,
    delay: '0.01',
    perPld: '1',
    concurrency: '4',
    timeout: '2s',
    crawlDelayCap: '60s',
    maxBytes: '1000000',
    maxRedirects: '5',
    maxLinks: '100',
    maxContexts: '8',
    maxCrawlContexts: '100',
    parseBudget: '10s',
    parseMemory: '192',
    policy: 'longest-first',
    roundEnd: 'observatory',
    logLevel: 'silent',
  };
  const bundle = join(dir, 'bundle.pem');
  await writeFile(bundle, `# the simulated Web's test CA, twice\n${sim.caPem}\n${sim.caPem}`);
  const { config } = crawlSetup({ ...cli, caFile: bundle });
  assert.deepEqual(
    config.caCertificates.map((pem) => pem.trim()),
    [sim.caPem!.trim(), sim.caPem!.trim()],
  );
  const fetcher = createFetcher(config);
  try {
    assert.equal((await fetcher.fetchDocument(TLS_SCENARIOS['tls-ok'].url)).status, 200);
  } finally {
    await fetcher.close();
  }
  const empty = join(dir, 'empty.pem');
  await writeFile(empty, 'no certificate here\n');
  const garbled = join(dir, 'garbled.pem');
  await writeFile(garbled, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  for (const file of [join(dir, 'missing.pem'), empty, garbled]) {
    assert.throws(
      () => crawlSetup({ ...cli, caFile: file }),
      (e: unknown) =>
        e instanceof ObservatoryError && e.code === 'invalid_input' && e.message.startsWith('--ca-file'),
      file,
    );
  }
});
