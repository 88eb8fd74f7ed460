import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DocumentRecord } from '../../pipeline/core/index.ts';
import { JOURNAL_FILE, type JournalLine, readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { readHistoryStats } from '../../pipeline/schedule/estimate/history-stats.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { readRows } from '../snapshot/read-rows.ts';
import { publishWeek, WEEK1 } from '../snapshot/sample-crawl.ts';
import { crawlInto, crawlSim, journalRecords, planFor, simConfig } from './sim-crawl.ts';

/**
 * A final URL is downloaded once per crawl. DCMI terms answer 302 and schema.org terms 303 to their
 * vocabulary document, as on the real Web; the DCMI document is also a seed of its own. Four fetch
 * slots per PLD let several term URIs reach the document while its download is in flight.
 */
const DCTERMS = 'http://purl.org/dc/terms/';
const SCHEMA_DOC = 'http://schema.org/version/latest/schemaorg-current-http.jsonld';
const DC_TERMS = ['title', 'creator', 'subject', 'license', 'Agent', 'Location'].map((t) => DCTERMS + t);
const SCHEMA_TERMS = ['Person', 'Place', 'name', 'author'].map((t) => `http://schema.org/${t}`);
const SEEDS = [...DC_TERMS, DCTERMS, ...SCHEMA_TERMS];

let sim: SimWeb;
let records: Map<string, DocumentRecord>;
let dir: string;
let requests: Array<{ host: string; path: string }>;

function config() {
  return simConfig(sim, { delayMs: 20, perPld: 4, concurrency: 16 });
}

before(async () => {
  sim = await startSimWeb({ seed: 5, docs: 100, plds: 10, latencyScale: 0 });
  const since = sim.requestLog().length;
  ({ records, dir } = await crawlSim(config(), planFor(SEEDS, 0)));
  requests = sim.requestLog(since).filter((e) => e.path !== '/robots.txt');
});

after(() => sim.close());

const downloads = (host: string, path: string) =>
  requests.filter((r) => r.host === host && r.path === path).length;

test('each vocabulary document is downloaded once, and every term URI still costs its request', () => {
  assert.equal(downloads('purl.org', '/dc/terms/'), 1);
  assert.equal(downloads('schema.org', new URL(SCHEMA_DOC).pathname), 1);
  for (const term of [...DC_TERMS, ...SCHEMA_TERMS]) {
    const u = new URL(term);
    assert.equal(downloads(u.hostname, u.pathname), 1, term);
  }
});

test('every URL has its row; one row per final URL downloaded it, the others point at it', () => {
  assert.equal(records.size, SEEDS.length);
  for (const [doc, urls] of [
    [DCTERMS, [...DC_TERMS, DCTERMS]],
    [SCHEMA_DOC, SCHEMA_TERMS],
  ] as const) {
    const rows = urls.map((u) => records.get(u)!);
    const owners = rows.filter((r) => r.downloadedBy === undefined);
    assert.equal(owners.length, 1, doc);
    const [owner] = owners;
    assert.equal(owner.finalUrl, doc);
    assert.ok(owner.statements > 0 && owner.graphHash !== null);
    for (const r of rows.filter((x) => x !== owner)) {
      assert.equal(r.downloadedBy, owner.url);
      assert.equal(r.finalUrl, doc);
      assert.equal(r.statements, owner.statements);
      assert.equal(r.format, owner.format);
      // its own redirect hop is recorded; the document itself was not requested again
      if (r.url !== DCTERMS)
        assert.deepEqual(
          r.redirects.map((h) => h.to),
          [doc],
        );
    }
  }
});

test('the published snapshot reconciles: statements of the downloading rows = rows of quads.parquet', async () => {
  const root = await mkdtemp(join(tmpdir(), 'shared-final-url-'));
  try {
    const { folder } = await publishWeek(root, WEEK1, () => readJournalDocuments(dir));
    const d = `read_parquet('${folder}/documents.parquet')`;
    const q = `read_parquet('${folder}/quads.parquet')`;
    const [[owned, quads, graphs]] = await readRows(
      `SELECT (SELECT sum(statements) FROM ${d} WHERE downloaded_by = url), (SELECT count(*) FROM ${q}),
        (SELECT count(*) FROM ${d} WHERE downloaded_by = url AND statements > 0)`,
    );
    assert.equal(Number(owned), Number(quads));
    assert.equal(Number(graphs), 2);
    // the join from quads to the row that downloaded them is exact: one row per graph
    const [[joined]] = await readRows(
      `SELECT count(*) FROM ${q} AS q JOIN ${d} AS o ON o.final_url = q.graph AND o.downloaded_by = o.url`,
    );
    assert.equal(Number(joined), Number(quads));
    // every URL keeps the graph hash and size of the document it leads to, for change detection per URL
    const perDoc = await readRows(
      `SELECT final_url, count(*), count(DISTINCT graph_hash), count(DISTINCT statements),
         count(DISTINCT content_sha256), min(parsed_statements >= statements)
       FROM ${d} GROUP BY final_url ORDER BY final_url`,
    );
    assert.deepEqual(perDoc, [
      [DCTERMS, DC_TERMS.length + 1, 1, 1, 1, true],
      [SCHEMA_DOC, SCHEMA_TERMS.length, 1, 1, 1, true],
    ]);
    // the estimator learns from this history what each URL cost: its own requests, not its owner's
    const history = await readHistoryStats(root);
    for (const [url, record] of records) {
      const own = record.redirects.length + (record.downloadedBy === undefined ? 1 : 0);
      assert.equal(history.urls.get(url)?.requests, own, url);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('rows whose downloading row is missing (a damaged journal line) are left out, the rest publishes', async () => {
  const root = await mkdtemp(join(tmpdir(), 'shared-orphans-'));
  try {
    async function* withoutDcmiDownload() {
      for await (const doc of readJournalDocuments(dir)) {
        if (doc.record.finalUrl !== DCTERMS || doc.record.downloadedBy !== undefined) yield doc;
      }
    }
    const { folder, manifest } = await publishWeek(root, WEEK1, withoutDcmiDownload);
    assert.equal(manifest.counts.documents, SCHEMA_TERMS.length);
    await verifySnapshot(folder);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('after a resume, a final URL fetched before the crash stays claimed', async () => {
  // the journal as a crash would leave it right after the DCMI document's download was journaled
  const lines = readFileSync(join(dir, JOURNAL_FILE), 'utf8').trimEnd().split('\n');
  const kept = lines.filter((text) => {
    const line = JSON.parse(text) as JournalLine;
    if (line.t === 'round') return true;
    return line.t === 'doc' && line.record.finalUrl === DCTERMS && line.record.downloadedBy === undefined;
  });
  assert.equal(kept.length, 2);
  writeFileSync(join(dir, JOURNAL_FILE), `${kept.join('\n')}\n`);
  const since = sim.requestLog().length;
  await crawlInto(dir, config(), planFor(SEEDS, 0));
  const again = sim.requestLog(since).filter((e) => e.host === 'purl.org' && e.path === '/dc/terms/');
  assert.equal(again.length, 0);
  const resumed = await journalRecords(dir);
  assert.equal(resumed.size, SEEDS.length);
  const owner = [...resumed.values()].find((r) => r.finalUrl === DCTERMS && r.downloadedBy === undefined)!;
  for (const url of [...DC_TERMS, DCTERMS].filter((u) => u !== owner.url)) {
    assert.equal(resumed.get(url)?.downloadedBy, owner.url, url);
  }
});
