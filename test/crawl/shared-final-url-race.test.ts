import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DocumentRecord } from '../../pipeline/core/index.ts';
import { readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { readRows } from '../snapshot/read-rows.ts';
import { publishWeek, WEEK1 } from '../snapshot/sample-crawl.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';
import { crawlSim, planFor } from './sim-crawl.ts';

/**
 * Two fetches meet on one final URL while it is being downloaded: a.org/x and b.org/y both redirect
 * to c.org/doc, and c.org holds its answer until both redirects have been sent (and a moment more),
 * so the second fetch reaches the document while the first is downloading it. Whichever claims it
 * first, the verdicts below are the same. Beside them, a.org/p and b.org/q redirect to each other:
 * two fetches that each hand over to the other, a redirect loop across fetches.
 */
const DOC = 'http://c.org/doc';
// the same triple twice: parsed 3 statements, 2 distinct
const BODY = [
  '<http://c.org/doc> <http://ex.org/p> "one" .',
  '<http://c.org/doc> <http://ex.org/p> "two" .',
  '<http://c.org/doc> <http://ex.org/p> "one" .',
].join('\n');
const SEEDS = ['http://a.org/x', 'http://b.org/y', 'http://a.org/p', 'http://b.org/q'];
const REDIRECTS: Record<string, string> = {
  'a.org/x': DOC,
  'b.org/y': DOC,
  'a.org/p': 'http://b.org/q',
  'b.org/q': 'http://a.org/p',
};

let server: TestServer;
let records: Map<string, DocumentRecord>;
let dir: string;

before(async () => {
  let redirected = 0;
  let release: () => void = () => {};
  const bothRedirected = new Promise<void>((resolve) => {
    release = resolve;
  });
  server = await startServer((req, res) => {
    const key = `${(req.headers.host ?? '').replace(/:\d+$/, '')}${req.url}`;
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    const target = REDIRECTS[key];
    if (target) {
      if (target === DOC) res.on('finish', () => ++redirected === 2 && release());
      return void res.writeHead(302, { location: target }).end();
    }
    if (key !== 'c.org/doc') return void res.writeHead(404).end();
    void bothRedirected
      .then(() => new Promise((resolve) => setTimeout(resolve, 200)))
      .then(() => res.writeHead(200, { 'content-type': 'application/n-triples' }).end(BODY));
  });
  ({ records, dir } = await crawlSim(configFor(server.port, { concurrency: 8 }), planFor(SEEDS, 0)));
});

after(() => server.close());

test('a final URL two fetches reach at once is downloaded once; one row owns it', () => {
  assert.equal(server.seen.filter((s) => s.host === 'c.org' && s.path === '/doc').length, 1);
  const [x, y] = [records.get('http://a.org/x')!, records.get('http://b.org/y')!];
  const [owner, other] = x.downloadedBy === undefined ? [x, y] : [y, x];
  assert.equal(owner.downloadedBy, undefined);
  assert.equal(other.downloadedBy, owner.url);
  for (const r of [x, y]) {
    assert.equal(r.finalUrl, DOC);
    assert.equal(r.status, 200);
    assert.equal(r.statements, 3);
  }
  assert.deepEqual(
    other.redirects.map((h) => h.to),
    [DOC],
  );
});

test('fetches that hand over to each other end in redirect_loop, not in a wait for ever', () => {
  const [p, q] = [records.get('http://a.org/p')!, records.get('http://b.org/q')!];
  assert.equal(p.error, 'redirect_loop');
  assert.equal(q.error, 'redirect_loop');
  assert.equal([p, q].filter((r) => r.downloadedBy === undefined).length, 1);
  // each URL of the loop was requested once, by one of the two fetches
  for (const path of ['/p', '/q']) assert.equal(server.seen.filter((s) => s.path === path).length, 1);
});

test('published: statements count distinct triples once per graph, parsed_statements as parsed', async () => {
  const root = await mkdtemp(join(tmpdir(), 'shared-race-'));
  try {
    const { folder } = await publishWeek(root, WEEK1, () => readJournalDocuments(dir));
    const rows = await readRows(
      `SELECT url, statements, parsed_statements, downloaded_by = url, error
       FROM read_parquet('${folder}/documents.parquet') ORDER BY url`,
    );
    const owns = (url: string) => records.get(url)!.downloadedBy === undefined;
    assert.deepEqual(rows, [
      ['http://a.org/p', 0, 0, owns('http://a.org/p'), 'redirect_loop'],
      ['http://a.org/x', 2, 3, owns('http://a.org/x'), null],
      ['http://b.org/q', 0, 0, owns('http://b.org/q'), 'redirect_loop'],
      ['http://b.org/y', 2, 3, owns('http://b.org/y'), null],
    ]);
    const [[quads]] = await readRows(`SELECT count(*) FROM read_parquet('${folder}/quads.parquet')`);
    assert.equal(Number(quads), 2);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
