/**
 * Remote JSON-LD contexts whose URL leads into another PLD: every context the documents name is on
 * a host without documents (A), and each of its URLs leads into B, a crawled PLD whose robots.txt
 * asks for a long Crawl-delay: one answers with a redirect to B's context, one with HTML and a Link
 * to its JSON-LD alternate on B (as https://schema.org answers), one redirects to a path B's
 * robots.txt disallows, one redirects back and forth between A and B into a loop, one along a
 * chain through A and B longer than maxRedirects. Whoever fetches a context, B must see its
 * requests Crawl-delay apart (its documents, its robots.txt read once, the contexts), each of its
 * URLs requested once, the disallowed path never, and the statements and error messages must be
 * those of one process.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { crawlConfig, parseResolveRule, silentLogger } from '../../pipeline/core/index.ts';
import { openPool } from '../../pipeline/distributed/pool.ts';
import { ensureSchema } from '../../pipeline/distributed/schema.ts';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import { openDuckDb, sqlString } from '../../pipeline/snapshot/index.ts';
import { politenessViolations } from '../crawl/sim-crawl.ts';
import { publishedContent } from '../soak/published-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import {
  assertThreeWorkersPublish,
  coordinatedWeek,
  freshRoot,
  oneProcessWeek,
  requestEntry,
  type WeekRun,
} from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
const DELAY = 250;
/** B's Crawl-delay: a request into B under another PLD's lease falls within it of B's own. */
const B_DELAY = 2000;
const A = 'a-vocab.test';
const B = 'b-host.test';
const SITES = Array.from({ length: 6 }, (_, i) => `site${i}.test`);
const B_DOCS = 4;
/**
 * The contexts on A, by what they answer: a redirect into B, a Link alternate on B, a redirect to
 * B's disallowed path, a loop through B, a chain through B and A (/hopN is on A for even N).
 */
const CONTEXTS = ['/redirect.jsonld', '/alternate', '/blocked.jsonld', '/loop.jsonld', '/hop0'];
const MAX_REDIRECTS = 3;
const NAME_IRIS: Record<string, string> = {
  '/context.jsonld': 'http://xmlns.com/foaf/0.1/name',
  '/alt.jsonld': 'http://schema.org/name',
  '/private/context.jsonld': 'http://example.org/private#name',
};

let pg: TestPostgres;
let server: Server;
let week: WeekRun;
let log: RequestLogEntry[] = [];

const documentUrl = (host: string, i: number) => `http://${host}/doc${i}`;

/** A crawl whose documents name more contexts than its limit, each on a host of its own. */
const LIMITED = 2;
const LIMIT_SITES = Array.from({ length: 6 }, (_, i) => `lim${i}.test`);
const limitedContext = (n: number) => `http://ctx${n % LIMIT_SITES.length}.test/context.jsonld`;

/** A site's document i names A's context i (of CONTEXTS); B's documents have theirs inline. */
function documentBody(host: string, i: number): string {
  const at = LIMIT_SITES.indexOf(host);
  const context =
    host === B
      ? { name: 'http://example.org/b#name' }
      : at >= 0
        ? limitedContext(at + i)
        : `http://${A}${CONTEXTS[i]}`;
  return JSON.stringify({ '@context': context, '@id': documentUrl(host, i), name: `${host} ${i}` });
}

function answer(host: string, path: string, res: import('node:http').ServerResponse): void {
  if (path === '/robots.txt') {
    const robots = host === B ? `User-agent: *\nCrawl-delay: ${B_DELAY / 1000}\nDisallow: /private\n` : '';
    return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
  }
  if (host === A && path === '/redirect.jsonld')
    return void res.writeHead(301, { location: `http://${B}/context.jsonld` }).end();
  if (host === A && path === '/blocked.jsonld')
    return void res.writeHead(302, { location: `http://${B}/private/context.jsonld` }).end();
  if (host === A && path === '/loop.jsonld')
    return void res.writeHead(302, { location: `http://${B}/loop` }).end();
  if (host === B && path === '/loop')
    return void res.writeHead(302, { location: `http://${A}/loop.jsonld` }).end();
  const hop = /^\/hop(\d+)$/.exec(path);
  if (hop && host === (Number(hop[1]) % 2 === 0 ? A : B)) {
    const next = Number(hop[1]) + 1;
    return void res.writeHead(302, { location: `http://${next % 2 === 0 ? A : B}/hop${next}` }).end();
  }
  if (host === A && path === '/alternate') {
    return void res
      .writeHead(200, {
        'content-type': 'text/html',
        link: `<http://${B}/alt.jsonld>; rel="alternate"; type="application/ld+json"`,
      })
      .end('<html><body>the vocabulary</body></html>');
  }
  if (/^ctx\d\.test$/.test(host) && path === '/context.jsonld') {
    return void res
      .writeHead(200, { 'content-type': 'application/ld+json' })
      .end(JSON.stringify({ '@context': { name: `http://${host}/#name` } }));
  }
  if (host === B && path in NAME_IRIS) {
    return void res
      .writeHead(200, { 'content-type': 'application/ld+json' })
      .end(JSON.stringify({ '@context': { name: NAME_IRIS[path] } }));
  }
  const match = /^\/doc(\d+)$/.exec(path);
  const docs =
    host === B ? B_DOCS : SITES.includes(host) ? CONTEXTS.length : LIMIT_SITES.includes(host) ? 6 : 0;
  if (match && Number(match[1]) < docs) {
    return void res
      .writeHead(200, { 'content-type': 'application/ld+json' })
      .end(documentBody(host, Number(match[1])));
  }
  res.writeHead(404).end();
}

before(async () => {
  pg = await startPostgres();
  server = createServer((req, res) => {
    const entry = requestEntry(log.length + 1, req);
    log.push(entry);
    const { host, path } = entry;
    answer(host, path, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  week = {
    kernel: [
      ...Array.from({ length: B_DOCS }, (_, i) => documentUrl(B, i)),
      ...SITES.flatMap((site) => CONTEXTS.map((_, i) => documentUrl(site, i))),
    ],
    at: W0,
    adaptiveRounds: 0,
    config: crawlConfig({
      resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
      allowPrivate: true,
      delayMs: DELAY,
      timeoutMs: 3000,
      maxAttempts: 1,
      maxRedirects: MAX_REDIRECTS,
      // one PLD per worker: B's holder is busy with B while the others parse the documents naming contexts
      concurrency: 1,
    }),
  };
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await pg?.stop();
});

/** The simulated Web's clock is not used here; the weekly runs only need `setClock`. */
const web = { setClock: () => {} } as unknown as Parameters<typeof oneProcessWeek>[0];

/** What the server saw of B: its politeness at its Crawl-delay, its robots.txt and contexts asked once. */
function assertPoliteAtB(): void {
  assert.deepEqual(politenessViolations(log, DELAY), []);
  assert.deepEqual(
    politenessViolations(
      log.filter((e) => e.pld === B),
      B_DELAY,
    ),
    [],
  );
  const paths = log.filter((e) => e.host === B).map((e) => e.path);
  const expected = ['/robots.txt', '/context.jsonld', '/alt.jsonld', '/loop', '/hop1', '/hop3'];
  assert.deepEqual(
    [...new Set(paths)].filter((p) => !p.startsWith('/doc')).sort(),
    expected.sort(),
    'robots.txt, the redirect target, the Link alternate, the loop, the chain up to maxRedirects; no disallowed path',
  );
  assert.equal(paths.length, new Set(paths).size, `each URL of B requested once: ${paths}`);
}

/** Each document's URL, error and error message (a failed context's message names where it failed). */
async function documentErrors(folder: string): Promise<string[]> {
  const db = await openDuckDb();
  try {
    const docs = sqlString(`${folder}/documents.parquet`);
    const sql = `SELECT concat_ws(' ', url, error, error_message) FROM read_parquet(${docs}) ORDER BY 1`;
    return (await db.connection.runAndReadAll(sql)).getRows().map((r) => String(r[0]));
  } finally {
    db.close();
  }
}

test('contexts that lead into another PLD are fetched under its lease, robots.txt and Crawl-delay holding, with the statements of one process', async () => {
  log = [];
  const reference = freshRoot('context-hops-one-');
  assert.equal((await oneProcessWeek(web, reference, week)).status, 'published');
  assertPoliteAtB();
  const expected = await publishedContent(join(reference, '2026-01-05'));
  assert.equal(expected.documents.length, week.kernel.length);
  const errors = await documentErrors(join(reference, '2026-01-05'));
  for (const [path, why] of [
    ['/blocked.jsonld', 'robots'],
    ['/loop.jsonld', `http://${B}/loop: redirect_loop`],
    ['/hop0', `http://${B}/hop3: redirect_limit`],
  ]) {
    assert.ok(
      errors.some((line) => line.includes(path) && line.includes(why)),
      `${path}: ${why} in ${errors.filter((line) => line.includes(path))}`,
    );
  }
  // both contexts reached in B gave their names (a failed context leaves the document without them)
  for (const iri of [NAME_IRIS['/context.jsonld'], NAME_IRIS['/alt.jsonld']]) {
    assert.ok(
      expected.quads.some((q) => q.includes(iri)),
      iri,
    );
  }

  log = [];
  const root = freshRoot('context-hops-three-');
  const url = await pg.database('context_hops');
  await assertThreeWorkersPublish(web, root, week, url, expected);
  assert.deepEqual(await documentErrors(join(root, '2026-01-05')), errors);
  assertPoliteAtB();
});

test('the limit of contexts holds for the whole crawl, across its workers', async () => {
  log = [];
  const root = freshRoot('context-limit-');
  const url = await pg.database('context_limit');
  const limited: WeekRun = {
    ...week,
    kernel: LIMIT_SITES.flatMap((site) => Array.from({ length: 6 }, (_, i) => documentUrl(site, i))),
    config: { ...week.config, maxContextsPerCrawl: LIMITED },
  };
  const { outcome, recorded } = await coordinatedWeek(web, root, limited, url, 3);
  assert.equal(outcome.status, 'published');
  assert.ok(recorded.filter((n) => n > 0).length >= 2, `recorded per worker: ${recorded}`);
  const contexts = log.filter((e) => e.path === '/context.jsonld').map((e) => e.host);
  assert.equal(contexts.length, LIMITED, `contexts requested: ${contexts}`);
  const errors = await documentErrors(join(root, '2026-01-05'));
  const refused = errors.filter((line) => line.includes(' context_limit '));
  // every document names one of six contexts: those naming the two fetched parse, the others are refused
  assert.equal(refused.length, errors.length - (errors.length / LIMIT_SITES.length) * LIMITED, `${errors}`);
});

test('a database set up before contexts could move gets the column', async () => {
  const db = await openPool(await pg.database('context_upgrade'), silentLogger);
  try {
    // as the previous version left it: no column, no schema version
    await db.query('ALTER TABLE context DROP COLUMN moved; COMMENT ON TABLE crawl IS NULL');
    await ensureSchema(db);
    const { rows } = await db.query('SELECT moved FROM context');
    assert.deepEqual(rows, []);
  } finally {
    await db.end();
  }
});
