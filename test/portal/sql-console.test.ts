import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { CrawledDocument, Statement } from '../../pipeline/core/index.ts';
import { listSnapshots, openDuckDb, queryRows } from '../../pipeline/snapshot/index.ts';
import { QUERIES_DIR } from '../../pipeline/stats/doc-queries.ts';
import { DUCKDB_BUNDLE } from '../../pipeline/stats/duckdb-wasm-bundle.ts';
import { buildPortal, type PortalServer, servePortal } from '../../pipeline/stats/index.ts';
import { publishWeek, record, source, WEEK1, WEEK2 } from '../snapshot/sample-crawl.ts';
import { openBrowser, type TestBrowser } from './browser.ts';

/**
 * The SQL console (site/src/pages/query.astro) in Chromium: DuckDB-WASM from the site itself over
 * the published Parquet, served by the portal's own server under a sub-path, with nothing beyond
 * 127.0.0.1 reachable. Two weekly snapshots of 1,600 documents x 100 statements (160,000 quads
 * each, objects of 64 hex digits that do not compress: quads.parquet is megabytes, two row
 * groups), so that a query which reads one document's quads has something to skip.
 */
const DOCS = 1600;
const STATEMENTS = 100;
const BASE_PATH = '/observatory/';
let work: string;
let root: string;
let site: string;
let portal: PortalServer;
let proxy: CountingProxy;
let browser: TestBrowser;
let page: Page;
/** Requests the browser tried to send beyond 127.0.0.1 (all refused). */
const outside: string[] = [];
/**
 * Why the Parquet tests are skipped: DuckDB-WASM 1.32.0 reads Parquet only through its `parquet`
 * extension, which is not in the npm package; DuckDB downloads it from extensions.duckdb.org on first
 * use. The console asks the site for it instead (tested below), and nothing here can fetch the file.
 */
const NO_PARQUET_EXTENSION =
  'the parquet extension of DuckDB-WASM (v1.4.3/wasm_eh/parquet.duckdb_extension.wasm) is not in the npm package and is not served by the site yet';

/** Week `w`'s documents: a fifth of them change their literals in week two. */
function documents(w: number): CrawledDocument[] {
  const at = (w === 0 ? WEEK1 : WEEK2) + 60_000;
  return Array.from({ length: DOCS }, (_, d) => {
    const url = `http://pld${d % 40}.example/doc/${String(d).padStart(5, '0')}`;
    const version = d % 5 === 0 ? w : 0;
    const statements: Statement[] = Array.from({ length: STATEMENTS }, (_, k) => ({
      subject: url,
      predicate: `http://example.org/vocab/p${k % 12}`,
      object: createHash('sha256').update(`${url} ${k} ${version}`).digest('hex'),
      objectKind: 'literal',
      datatype: 'http://www.w3.org/2001/XMLSchema#string',
      lang: null,
    }));
    const graphHash = createHash('sha256').update(`${url} ${version}`).digest('hex');
    return { record: record(url, at + d, { statements: STATEMENTS, graphHash }), statements };
  });
}

/** Each response's body bytes, as the browser receives them: what the console costs on the wire. */
interface CountingProxy {
  readonly url: string;
  readonly responses: { path: string; status: number; bytes: number }[];
  close(): Promise<void>;
}

/** A pass-through HTTP proxy in front of the portal's server that counts the bytes of every answer. */
function countingProxy(target: string): Promise<CountingProxy> {
  const { port } = new URL(target);
  const responses: CountingProxy['responses'] = [];
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const seen = { path: req.url ?? '', status: answer.statusCode ?? 0, bytes: 0 };
        responses.push(seen);
        res.writeHead(seen.status, answer.headers);
        answer.on('data', (chunk: Buffer) => {
          seen.bytes += chunk.length;
        });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () =>
      done({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        responses,
        close: () =>
          new Promise((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      }),
    ),
  );
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'portal-sql-console-'));
  root = join(work, 'snapshots');
  site = join(work, 'site');
  await publishWeek(root, WEEK1, source(documents(0)));
  await publishWeek(root, WEEK2, source(documents(1)));
  portal = await servePortal({ dir: site, basePath: BASE_PATH });
  proxy = await countingProxy(portal.url);
  await buildPortal({ root, out: site, dataDir: join(work, 'data'), baseUrl: `${proxy.url}${BASE_PATH}` });
  browser = await openBrowser();
  // nothing leaves 127.0.0.1: not the page, not DuckDB's worker (no CDN, no extension downloads)
  await browser.context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      outside.push(route.request().url());
      return route.abort();
    },
  );
  page = await browser.context.newPage();
  await page.goto(`${proxy.url}${BASE_PATH}query/`);
});

after(async () => {
  await page?.close();
  await browser?.close();
  await proxy?.close();
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

/** The rows of the result table, each cell as text; waits for this run's outcome, however long it takes. */
async function runInConsole(run: () => Promise<void>): Promise<string[][]> {
  await run();
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.getElementById('sql-console')?.dataset.state ?? ''),
    null,
    { timeout: 240_000 },
  );
  if ((await page.getAttribute('#sql-console', 'data-state')) === 'error')
    assert.fail(`the console failed: ${await page.textContent('#error')}`);
  return page
    .locator('#result tbody tr')
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));
}

/** A query's rows from @duckdb/node-api over the files on disk, each value as the console shows it. */
async function onDisk(sql: string): Promise<string[][]> {
  const db = await openDuckDb();
  try {
    const rows = await queryRows(db.connection, sql);
    return rows.map((r) => r.map((v) => (v === null ? 'NULL' : String(v))));
  } finally {
    db.close();
  }
}

test('an example query over both snapshots, one click away, gives the rows DuckDB gives on disk', {
  skip: NO_PARQUET_EXTENSION,
}, async () => {
  assert.equal((await listSnapshots(root)).length, 2);
  const file = 'change-frequency-per-pld.sql';
  const shown = await runInConsole(() =>
    page.click(`button[data-sql]:text-is("${file.replace('.sql', '')}")`),
  );
  const sql = (await readFile(join(QUERIES_DIR, file), 'utf8')).replaceAll("'snapshots/", `'${root}/`);
  const expected = await onDisk(sql);
  assert.equal(expected.length, 40, 'one row per PLD');
  assert.deepEqual(shown, expected);
  // the full result as CSV: a header, then every row
  const download = page.waitForEvent('download');
  await page.click('#result a[download]');
  const csv = await readFile((await (await download).path())!, 'utf8');
  assert.equal(csv.trimEnd().split('\r\n').length, expected.length + 1);
});

test('a selective query reads a small part of the Parquet it queries', {
  skip: NO_PARQUET_EXTENSION,
}, async (t) => {
  const [newest] = (await listSnapshots(root)).slice(-1);
  const graph = 'http://pld7.example/doc/00007';
  const quads = join(root, newest.name, 'quads.parquet');
  const sql = `SELECT graph, count(*) AS quads FROM quads WHERE snapshot = '${newest.name}' AND graph = '${graph}' GROUP BY graph`;
  const before = proxy.responses.length;
  const shown = await runInConsole(async () => {
    await page.fill('#sql', sql);
    await page.click('#run');
  });
  assert.deepEqual(shown, [[graph, String(STATEMENTS)]]);
  const parquet = proxy.responses.slice(before).filter((r) => r.path.endsWith('/quads.parquet'));
  const transferred = parquet.reduce((sum, r) => sum + r.bytes, 0);
  // the view covers both snapshots' quads.parquet: DuckDB reads both footers, then only what it keeps
  const held =
    (await stat(quads)).size +
    (await stat(quads.replace(newest.name, (await listSnapshots(root))[0].name))).size;
  t.diagnostic(
    `selective query: ${transferred} bytes of quads.parquet transferred, files hold ${held} bytes`,
  );
  assert.ok(parquet.length > 0, 'the query read quads.parquet over HTTP');
  assert.ok(
    parquet.every((r) => r.status === 206 || r.bytes === 0),
    'only ranged reads (or HEAD)',
  );
  assert.ok(transferred * 20 < held, `${transferred} bytes transferred of ${held}`);
});

test('DuckDB-WASM runs from the site and asks the site, never a CDN, for its Parquet extension; errors are shown as they are', async () => {
  await page.fill('#sql', 'SELECT count(*) FROM documents');
  await page.click('#run');
  await page.waitForSelector('#error', { timeout: 240_000 });
  const extension = `${proxy.url}${BASE_PATH}${DUCKDB_BUNDLE.dir}/extensions/v1.4.3/wasm_eh/parquet.duckdb_extension.wasm`;
  assert.match(
    (await page.textContent('#error')) ?? '',
    new RegExp(`${extension.replaceAll('.', '\\.')} is not available`),
  );
  assert.deepEqual(outside, [], 'no request beyond 127.0.0.1');
  const served = proxy.responses.filter((r) => r.status === 200).map((r) => r.path);
  for (const file of [DUCKDB_BUNDLE.worker, DUCKDB_BUNDLE.wasm, 'index.json'])
    assert.ok(
      served.some((path) => path.endsWith(`/${file}`)),
      `${file} loaded from the site`,
    );
});

test('only the console loads JavaScript, from the site itself; the site holds one DuckDB-WASM bundle', async () => {
  const scripts = await page.$$eval('script', (list) => list.map((s) => (s as HTMLScriptElement).src));
  assert.ok(
    scripts.length > 0 && scripts.every((src) => src.startsWith(`${proxy.url}${BASE_PATH}`)),
    String(scripts),
  );
  const bundle = await readdir(join(site, DUCKDB_BUNDLE.dir));
  assert.deepEqual(bundle.sort(), [DUCKDB_BUNDLE.worker, DUCKDB_BUNDLE.wasm].sort());
  const html = (await readdir(site, { recursive: true })).filter((f) => f.endsWith('.html'));
  assert.ok(html.length > 10);
  for (const file of html) {
    const text = await readFile(join(site, file), 'utf8');
    assert.equal(text.includes('<script'), file === join('query', 'index.html'), file);
  }
});
