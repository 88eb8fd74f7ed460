import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { CrawledDocument, Statement } from '../../pipeline/core/index.ts';
import { DUCKDB_BUNDLE } from '../../pipeline/portal/duckdb-wasm-bundle.ts';
import { buildPortal, type PortalServer, servePortal } from '../../pipeline/portal/index.ts';
import { REPLAY_BUNDLE } from '../../pipeline/portal/replay-bundle.ts';
import { listSnapshots, openDuckDb, queryRows } from '../../pipeline/snapshot/index.ts';
import { QUERIES_DIR } from '../../pipeline/stats/doc-queries.ts';
import { publishWeek, record, source, WEEK1, WEEK2 } from '../snapshot/sample-crawl.ts';
import { openBrowser, refuseBeyondLocalhost, type TestBrowser } from './browser.ts';

/**
 * The SQL console (site/src/pages/query.astro) in Chromium: DuckDB-WASM from the site itself, under a
 * sub-path, over Parquet published elsewhere (`--downloads-url`: another origin, so CORS and ranged
 * reads are exercised), both served by the portal's own server, with nothing beyond 127.0.0.1
 * reachable. Week one is small; week two's quads.parquet holds 2,000 documents x 320 statements
 * (640,000 rows, so several row groups of DuckDB's 122,880) with objects that do not compress, so
 * that a query keeping one graph has most of the file to skip.
 */
const DOCS = 2000;
const STATEMENTS = [4, 320];
const BASE_PATH = '/observatory/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
let work: string;
let root: string;
let site: string;
let portal: PortalServer;
let downloads: PortalServer;
let proxy: CountingProxy;
let browser: TestBrowser;
let page: Page;
/** Requests the browser tried to send beyond 127.0.0.1 (all refused). */
let outside: string[];

/** Week `w`'s documents on 40 PLDs: a fifth of them change in week two. */
function documents(w: number): CrawledDocument[] {
  const at = (w === 0 ? WEEK1 : WEEK2) + 60_000;
  return Array.from({ length: DOCS }, (_, d) => {
    const url = `http://pld${d % 40}.example/doc/${String(d).padStart(5, '0')}`;
    const version = d % 5 === 0 ? w : 0;
    // the document declares a class for itself (vocabulary-dynamics.sql), then 12 predicates of literals
    const statements: Statement[] = Array.from({ length: STATEMENTS[w] }, (_, k) =>
      k === 0
        ? {
            subject: url,
            predicate: RDF_TYPE,
            object: `http://example.org/vocab/C${d % 3}`,
            objectKind: 'iri',
            datatype: null,
            lang: null,
          }
        : {
            subject: url,
            predicate: `http://example.org/vocab/p${k % 12}`,
            object: createHash('sha256').update(`${url} ${k} ${w}`).digest('hex').slice(0, 24),
            objectKind: 'literal',
            datatype: 'http://www.w3.org/2001/XMLSchema#string',
            lang: null,
          },
    );
    const graphHash = createHash('sha256').update(`${url} ${version}`).digest('hex');
    return { record: record(url, at + d, { statements: STATEMENTS[w], graphHash }), statements };
  });
}

/** The body bytes of every answer, as the browser receives them: what the console costs on the wire. */
interface CountingProxy {
  readonly url: string;
  readonly responses: { path: string; method: string; range: string; status: number; bytes: number }[];
  close(): Promise<void>;
}

/** A pass-through HTTP proxy in front of a server that counts the bytes of every answer. */
function countingProxy(target: string): Promise<CountingProxy> {
  const { port } = new URL(target);
  const responses: CountingProxy['responses'] = [];
  const server = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const seen = {
          path: req.url ?? '',
          method: req.method ?? '',
          range: req.headers.range ?? '',
          status: answer.statusCode ?? 0,
          bytes: 0,
        };
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
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
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
  downloads = await servePortal({ dir: root });
  proxy = await countingProxy(downloads.url);
  await buildPortal({
    root,
    out: site,
    dataDir: join(work, 'data'),
    baseUrl: portal.url,
    downloadsUrl: proxy.url,
  });
  browser = await openBrowser();
  // nothing leaves 127.0.0.1: not the page, not DuckDB's worker (no CDN, no extension downloads)
  outside = await refuseBeyondLocalhost(browser.context);
  page = await browser.context.newPage();
  page.on('dialog', (dialog) => assert.fail(`a dialog: ${dialog.message()}`));
  await page.goto(`${portal.url}query/`);
});

after(async () => {
  await page?.close();
  await browser?.close();
  await proxy?.close();
  await downloads?.close();
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

/** The console's outcome for one run: its result table (cells as text) or its error text. */
interface Outcome {
  readonly header: string[];
  readonly rows: string[][];
  readonly error: string | null;
}

/** Starts a run and waits for its outcome (the console's data-state), however long the machine takes. */
async function runInConsole(run: () => Promise<void>): Promise<Outcome> {
  await page.evaluate(() => {
    const root = document.getElementById('sql-console') as HTMLElement;
    root.dataset.state = 'clicked';
  });
  await run();
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.getElementById('sql-console')?.dataset.state ?? ''),
    null,
    { timeout: 0 },
  );
  if ((await page.getAttribute('#sql-console', 'data-state')) === 'error')
    return { header: [], rows: [], error: await page.textContent('#error') };
  return {
    header: await page.locator('#result thead th').allTextContents(),
    rows: await page
      .locator('#result tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      ),
    error: null,
  };
}

const example = (file: string) => () => page.click(`button[data-sql]:text-is("${file.replace('.sql', '')}")`);
const typed = (sql: string) => async () => {
  await page.fill('#sql', sql);
  await page.click('#run');
};

/** An example query run by @duckdb/node-api over the files on disk: column names and values as text. */
async function onDisk(file: string): Promise<{ header: string[]; rows: string[][] }> {
  const sql = (await readFile(join(QUERIES_DIR, file), 'utf8')).replaceAll("'snapshots/", `'${root}/`);
  const db = await openDuckDb();
  try {
    const result = await db.connection.runAndReadAll(sql);
    const rows = (await queryRows(db.connection, sql)).map((r) =>
      r.map((v) => (v === null ? 'NULL' : String(v))),
    );
    return { header: result.columnNames(), rows };
  } finally {
    db.close();
  }
}

/**
 * DuckDB-WASM's HTTP reads (lib/src/io/readahead_buffer.h of duckdb-wasm): in blocks of
 * READAHEAD_BASE (16 KiB) aligned to the file, and a read that continues the previous one grows by
 * READAHEAD_ACCELERATION (x4, up to 16 MiB); so a run of S bytes, starting anywhere, costs at most
 * 4 (S + 16 KiB) + 16 KiB. It also reads one block at the start of each row group of a file, even
 * of one its statistics then skip (measured).
 */
const READAHEAD_BASE = 16 * 1024;
const READAHEAD_ACCELERATION = 4;

/** The Parquet layout of `file` for the column chunks of `columns` in the row groups that may hold `graph`. */
async function layout(file: string, graph: string, columns: readonly string[]) {
  const db = await openDuckDb();
  try {
    const [[groups, chunks, bytes]] = await queryRows(
      db.connection,
      `WITH m AS (SELECT * FROM parquet_metadata('${file}')),
         kept AS (SELECT row_group_id FROM m WHERE path_in_schema = 'graph'
           AND stats_min_value <= '${graph}' AND stats_max_value >= '${graph}')
       SELECT (SELECT count(DISTINCT row_group_id) FROM m), count(*), sum(total_compressed_size)
       FROM m WHERE row_group_id IN (SELECT row_group_id FROM kept)
         AND path_in_schema IN (${columns.map((c) => `'${c}'`).join(', ')})`,
    );
    return { groups: Number(groups), chunks: Number(chunks), bytes: Number(bytes) };
  } finally {
    db.close();
  }
}

/** The bytes of the answers to the requests made while `run` ran whose path ends in `suffix`. */
async function served(
  suffix: string,
  run: () => Promise<Outcome>,
): Promise<{ outcome: Outcome; bytes: number; requests: number; paths: Set<string> }> {
  const before = proxy.responses.length;
  const outcome = await run();
  const paths = new Set(proxy.responses.slice(before).map((r) => r.path));
  const reads = proxy.responses.slice(before).filter((r) => r.path.endsWith(suffix));
  assert.ok(
    reads.every((r) => r.status === 206 || r.bytes === 0),
    `only ranged reads (or HEAD): ${reads.map((r) => `${r.method} ${r.range} ${r.status}`).join('; ')}`,
  );
  return { outcome, bytes: reads.reduce((sum, r) => sum + r.bytes, 0), requests: reads.length, paths };
}

// first: DuckDB-WASM keeps what it read of a file for later queries of the page, and so does Chromium's cache
test('a selective query reads a small part of the Parquet file it queries', async (t) => {
  const newest = (await listSnapshots(root)).at(-1)!.name;
  const file = join(root, newest, 'quads.parquet');
  const bytes = await readFile(file);
  const footer = 8 + bytes.readUInt32LE(bytes.length - 8);
  // one document's quads by predicate: the graph and predicate columns of the row group(s) whose
  // statistics admit the graph (quads are sorted by graph: one, or two when it straddles)
  const graph = 'http://pld1.example/doc/00001';
  const sql = `SELECT predicate, count(*) AS quads FROM read_parquet('${proxy.url}${newest}/quads.parquet')
WHERE graph = '${graph}' GROUP BY predicate ORDER BY predicate`;
  const kept = await layout(file, graph, ['graph', 'predicate']);
  // the footer (one run), a block per row group, and each kept column chunk as a run of its own
  const run = (bytes: number) => READAHEAD_ACCELERATION * (bytes + READAHEAD_BASE) + READAHEAD_BASE;
  const allowed =
    run(footer) +
    kept.groups * READAHEAD_BASE +
    READAHEAD_ACCELERATION * (kept.bytes + kept.chunks * READAHEAD_BASE) +
    kept.chunks * READAHEAD_BASE;
  assert.ok(kept.groups >= 5, `${kept.groups} row groups`);
  assert.ok(
    allowed * 10 < bytes.length,
    `by construction the query needs ${allowed} of ${bytes.length} bytes`,
  );
  const selective = await served(`${newest}/quads.parquet`, () => runInConsole(typed(sql)));
  assert.equal(selective.outcome.error, null, String(selective.outcome.error));
  // a query that names no table of the catalogue opens no other file (the views are defined on use)
  assert.deepEqual(selective.paths, new Set(['/index.json', `/${newest}/quads.parquet`]));
  const db = await openDuckDb();
  const expected = (await queryRows(db.connection, sql.replace(`${proxy.url}`, `${root}/`))).map((r) =>
    r.map(String),
  );
  db.close();
  assert.equal(expected.length, 13, 'the graph uses rdf:type and 12 other predicates');
  assert.deepEqual(selective.outcome.rows, expected);
  // the same graph, every column: the whole row group(s), for comparison
  const everything = await served(`${newest}/quads.parquet`, () =>
    runInConsole(
      typed(`SELECT * FROM read_parquet('${proxy.url}${newest}/quads.parquet') WHERE graph = '${graph}'`),
    ),
  );
  assert.equal(everything.outcome.rows.length, STATEMENTS[1]);
  const share = (n: number) => `${((100 * n) / bytes.length).toFixed(1)}%`;
  t.diagnostic(
    `quads.parquet ${bytes.length} bytes, ${kept.groups} row groups; one graph by predicate: ${selective.bytes} bytes (${share(selective.bytes)}) in ${selective.requests} requests, at most ${allowed} allowed; the same graph, every column: ${everything.bytes} bytes (${share(everything.bytes)}) in ${everything.requests} requests`,
  );
  assert.ok(selective.bytes > 0, 'the query read quads.parquet over HTTP');
  assert.ok(selective.bytes <= allowed, `${selective.bytes} bytes transferred, at most ${allowed} expected`);
  assert.ok(everything.bytes < bytes.length, 'not the whole file, even for every column');
});

test('a query over both snapshots, one click away, gives the rows DuckDB gives on disk; CSV has them all', async () => {
  assert.equal((await listSnapshots(root)).length, 2);
  for (const file of ['change-frequency-per-pld.sql', 'statements-per-snapshot.sql']) {
    const shown = await runInConsole(example(file));
    assert.equal(shown.error, null, `${file}: ${shown.error}`);
    const expected = await onDisk(file);
    assert.ok(expected.rows.length >= 2, `${file}: several rows`);
    assert.deepEqual(shown.header, expected.header, file);
    assert.deepEqual(shown.rows, expected.rows, file);
  }
  const perPld = await onDisk('change-frequency-per-pld.sql');
  assert.equal(perPld.rows.length, 40, 'one row per PLD');
  // the CSV download of the last result: a header, then every row, values as shown
  const download = page.waitForEvent('download');
  await page.click('#result a[download]');
  const csv = (await readFile((await (await download).path()) as string, 'utf8')).trimEnd().split('\r\n');
  const expected = await onDisk('statements-per-snapshot.sql');
  const line = (cells: string[]) => cells.map((c) => `"${c}"`).join(',');
  assert.deepEqual(csv, [line(expected.header), ...expected.rows.map(line)]);
});

test('every example query runs from its button and shows a table of its columns and rows', async () => {
  const files = (await readdir(QUERIES_DIR)).filter((f) => f.endsWith('.sql')).sort();
  assert.equal(await page.locator('button[data-sql]').count(), files.length);
  // the query the page starts with: the newest weekly snapshot's documents by its published URL
  const first = await page.$eval('#sql', (e) => (e as HTMLTextAreaElement).defaultValue);
  assert.match(first, new RegExp(`read_parquet\\('${proxy.url}[^']+/documents\\.parquet'\\)`));
  const opening = await runInConsole(typed(first));
  assert.equal(opening.error, null, String(opening.error));
  assert.deepEqual(opening.header, ['status', 'error', 'documents']);
  assert.deepEqual(opening.rows, [['200', 'NULL', String(DOCS)]]);
  for (const file of files) {
    const shown = await runInConsole(example(file));
    assert.equal(shown.error, null, `${file}: ${shown.error}`);
    const expected = await onDisk(file);
    assert.deepEqual(shown.header, expected.header, file);
    // every query has rows to compare but the redirect chains (no document here is redirected)
    assert.equal(expected.rows.length > 0, file !== 'redirect-chains.sql', file);
    // the first 1,000 rows are shown; instants compared as instants (the console writes ISO 8601)
    const instants = (rows: string[][]) => rows.map((r) => r.map(instant));
    assert.deepEqual(instants(shown.rows), instants(expected.rows.slice(0, 1000)), file);
  }
});

/** A timestamp as text, in either engine's form, as ISO 8601 in UTC; any other text as it is. */
function instant(cell: string): string {
  const time = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)(Z|[+-]\d\d(?::?\d\d)?)$/.exec(cell);
  if (!time) return cell;
  const zone = time[3] === 'Z' ? 'Z' : time[3].length === 3 ? `${time[3]}:00` : time[3];
  return new Date(`${time[1]}T${time[2]}${zone}`).toISOString();
}

test('values are shown as DuckDB gives them: decimals, huge integers, booleans, NULL, quotes', async () => {
  const sql = `SELECT -12.345::DECIMAL(10,3) AS d, 0.05::DECIMAL(4,2) AS small,
    170141183460469231731687303715884105727::HUGEINT AS huge, -9007199254740993::BIGINT AS big,
    1.5::DOUBLE AS f, true AS t, NULL AS n, 'a "quoted", text' AS s`;
  const shown = await runInConsole(typed(sql));
  const db = await openDuckDb();
  const expected = (await queryRows(db.connection, sql)).map((r) =>
    r.map((v) => (v === null ? 'NULL' : String(v))),
  );
  db.close();
  assert.deepEqual(shown.rows, expected);
});

test('dates and timestamps are shown as DuckDB writes them, not as JSON', async () => {
  const sql = `SELECT DATE '2026-01-26' AS day, TIMESTAMP '2026-01-26 10:30:05' AS t,
    TIMESTAMP '2026-01-26 10:30:05.5' AS half, TIMESTAMP '2026-01-26 10:30:05.123456' AS micros,
    TIMESTAMPTZ '2026-01-26 10:30:05+00' AS tz`;
  const shown = await runInConsole(typed(sql));
  assert.equal(shown.error, null, String(shown.error));
  assert.deepEqual(shown.rows, [
    [
      '2026-01-26',
      '2026-01-26 10:30:05',
      '2026-01-26 10:30:05.5',
      '2026-01-26 10:30:05.123456',
      '2026-01-26 10:30:05+00',
    ],
  ]);
  // the same text as DuckDB's own client gives (what a researcher's DuckDB prints)
  const db = await openDuckDb();
  const expected = (await queryRows(db.connection, sql)).map((r) => r.map(String));
  db.close();
  assert.deepEqual(shown.rows, expected);
});

test('the CSV download writes NULL as an empty field and the empty string as ""', async () => {
  const shown = await runInConsole(typed(`SELECT 1 AS n, NULL AS missing, '' AS empty, 'NULL' AS word`));
  assert.deepEqual(shown.rows, [['1', 'NULL', '', 'NULL']]);
  const download = page.waitForEvent('download');
  await page.click('#result a[download]');
  const csv = await readFile((await (await download).path()) as string, 'utf8');
  assert.equal(csv, '"n","missing","empty","word"\r\n"1",,"","NULL"\r\n');
  // DuckDB reads it back with the NULL missing, and the empty string and the word as they were
  // where it tells "" from an empty field (allow_quoted_nulls = false)
  const file = join(work, 'result.csv');
  await writeFile(file, csv);
  const db = await openDuckDb();
  const back = await queryRows(
    db.connection,
    `SELECT missing IS NULL, empty, word FROM read_csv('${file}', header = true, all_varchar = true, allow_quoted_nulls = false)`,
  );
  db.close();
  assert.deepEqual(back, [[true, '', 'NULL']]);
});

test('a file that is not there: the error names its URL and the status it answered', async () => {
  const missing = `${proxy.url}no-such-snapshot/documents.parquet`;
  const failed = await runInConsole(typed(`SELECT count(*) FROM read_parquet('${missing}')`));
  assert.ok(failed.error?.includes(missing), String(failed.error));
  assert.match(failed.error ?? '', /\b404\b/);
  assert.doesNotMatch(failed.error ?? '', /WebAssembly\.Exception/);
});

test('a glob over HTTP: the error says that a URL names no folder, and what to query instead', async () => {
  const glob = `${proxy.url}*/documents.parquet`;
  const failed = await runInConsole(typed(`SELECT count(*) FROM read_parquet('${glob}')`));
  assert.ok(failed.error?.includes(glob), String(failed.error));
  assert.match(failed.error ?? '', /HTTP does not list folders/);
  assert.match(failed.error ?? '', /views documents, quads/);
  // and the database is still there for the next query
  const next = await runInConsole(typed('SELECT 42 AS answer'));
  assert.deepEqual(next.rows, [['42']]);
});

test('errors are shown as text in the page, and the next query runs', async () => {
  const failed = await runInConsole(typed('SELECT no_such_column FROM documents'));
  assert.match(failed.error ?? '', /no_such_column/);
  assert.equal(await page.getAttribute('#error', 'role'), 'alert');
  const unknown = await runInConsole(typed('SELECT * FROM no_such_table'));
  assert.match(unknown.error ?? '', /no_such_table/);
  const next = await runInConsole(typed('SELECT count(*) AS n FROM documents'));
  assert.deepEqual(next.rows, [[String(2 * DOCS)]]);
});

test('DuckDB-WASM is loaded from the site, and nothing from elsewhere', async () => {
  assert.deepEqual(outside, [], 'no request beyond 127.0.0.1');
  const scripts = await page.$$eval('script', (list) => list.map((s) => (s as HTMLScriptElement).src));
  assert.ok(scripts.length > 0 && scripts.every((src) => src.startsWith(portal.url)), String(scripts));
  const bundle = await readdir(join(site, DUCKDB_BUNDLE.dir));
  assert.deepEqual(bundle.sort(), [DUCKDB_BUNDLE.worker, DUCKDB_BUNDLE.wasm].sort());
});

test('only the console loads JavaScript, besides replay; without it, the page says what it needs and where to go', async () => {
  const html = (await readdir(site, { recursive: true })).filter((f) => f.endsWith('.html'));
  assert.ok(html.length > 10);
  // ReplayWeb.page's pages, where the build published an archive to replay (test/portal/replay.test.ts)
  const replay = [join('replay', 'index.html'), join(REPLAY_BUNDLE.dir, REPLAY_BUNDLE.frame)];
  for (const file of html) {
    const text = await readFile(join(site, file), 'utf8');
    if (!replay.includes(file))
      assert.equal(text.includes('<script'), file === join('query', 'index.html'), file);
  }
  const data = await readFile(join(site, 'data', 'index.html'), 'utf8');
  assert.match(data, new RegExp(`href="${BASE_PATH}query/"`), 'the Data page links the console');
  // Chromium with scripts off, as a reader who disabled them sees the page
  const plain = await browser.context.newPage();
  await (await browser.context.newCDPSession(plain)).send('Emulation.setScriptExecutionDisabled', {
    value: true,
  });
  await plain.goto(`${portal.url}query/`);
  const note = (await plain.textContent('main')) ?? '';
  assert.match(note, /needs JavaScript/);
  assert.equal(await plain.isVisible('#sql-console'), false);
  for (const href of [`${BASE_PATH}downloads/`, `${BASE_PATH}data/#queries`, `${BASE_PATH}data/#in-place`])
    assert.equal((await plain.locator(`main a[href="${href}"]`).count()) > 0, true, href);
  await plain.close();
});
