/**
 * Text that PostgreSQL's TEXT cannot hold as it came, through the coordinator. A raw NUL byte in a
 * JSON-LD context's body killed every worker (`invalid byte sequence for encoding "UTF8": 0x00`,
 * a restarted one again) while the coordinator waited for ever; a lone surrogate was silently made
 * U+FFFD; a link, a seed or a context URL longer than a btree entry (about 2,700 bytes) killed the
 * worker that recorded it (`index row size exceeds btree version 4 maximum`). The Web here serves
 * them all: NUL bytes and invalid UTF-8 in context bodies, documents and robots.txt, context URLs
 * with a NUL, a lone surrogate, a non-ASCII letter or 3,000 characters (or no host, or another
 * scheme), links, seeds and redirects of 3,000 characters, Latin-1 bytes in headers. Crawled in
 * one process and by two workers through the coordinator, the published tables must agree row by
 * row.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CrawlConfig, clockStartingAt, silentLogger } from '../../pipeline/core/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { firstDifferences } from '../soak/published-content.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';
import { archiveRecords } from './archive-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { queryFolder, TABLE_NAMES, tableRows } from './published-rows.ts';
import { freshRoot, withWorkers } from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';

/** 3,000 characters no compression shortens below a btree entry's limit, the same in every run. */
function noise(seed: number, length = 3000): string {
  let x = seed;
  let out = '';
  while (out.length < length) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += 'abcdefghijklmnopqrstuvwxyz0123456789'[x % 36];
  }
  return out;
}

const NAME = 'http://xmlns.com/foaf/0.1/name';
const TITLE = 'http://purl.org/dc/terms/title';
const RELATION = 'http://purl.org/dc/terms/relation';
const LONG_LINK = `http://long.example/${noise(1)}`;
const LONG_SEED = `http://long.example/seed/${noise(2)}`;
const LONG_CONTEXT = `http://ctx.example/${noise(3)}.jsonld`;
const LONG_REDIRECT = `http://long.example/moved/${noise(4)}`;

interface Page {
  readonly type?: string;
  readonly body?: Buffer;
  readonly status?: number;
  readonly headers?: Record<string, string>;
}

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const jsonld = (value: unknown): Page => ({
  type: 'application/ld+json',
  body: Buffer.from(JSON.stringify(value)),
});
const nt = (...parts: (string | number[])[]): Page => ({
  type: 'application/n-triples',
  body: bytes(...parts),
});
/** A JSON-LD document naming the remote context `context`. */
const withContext = (url: string, context: string) =>
  jsonld({ '@context': context, '@id': url, name: `named through ${context.slice(0, 60)}` });
const contextBody = (...parts: (string | number[])[]): Page => ({
  type: 'application/ld+json',
  body: bytes(...parts),
});

/** The Web, one line per URL (every host answers on the test server). */
const WEB: Record<string, Page> = {
  // a raw NUL byte inside and after the context's JSON (the attack that killed every worker)
  'http://a.example/nul-context': withContext(
    'http://a.example/nul-context',
    'http://ctx.example/nul.jsonld',
  ),
  'http://ctx.example/nul.jsonld': contextBody(
    `{"@context": {"name": "${NAME}", "note": "a`,
    [0],
    `b"}}`,
    [0],
  ),
  // invalid UTF-8 (a lone continuation byte, a truncated sequence, an encoded surrogate, an overlong slash) in IRIs
  'http://a.example/utf8-context': withContext(
    'http://a.example/utf8-context',
    'http://ctx.example/utf8.jsonld',
  ),
  'http://ctx.example/utf8.jsonld': contextBody(
    '{"@context": {"name": "http://example.org/na',
    [0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xc0, 0xaf],
    'me", "@vocab": "http://example.org/v',
    [0x80],
    '/"}}',
  ),
  // a lone surrogate, escaped in the context's JSON: IRIs holding one
  'http://a.example/surrogate-context': withContext(
    'http://a.example/surrogate-context',
    'http://ctx.example/surrogate.jsonld',
  ),
  'http://ctx.example/surrogate.jsonld': contextBody(
    `{"@context": {"name": "http://example.org/\\ud800name", "@language": "en"}}`,
  ),
  // context URLs TEXT or a btree entry cannot hold as they are
  'http://b.example/nul-url': withContext('http://b.example/nul-url', 'http://ctx.example/x\u0000y.jsonld'),
  'http://b.example/surrogate-url': withContext(
    'http://b.example/surrogate-url',
    'http://ctx.example/\ud800.jsonld',
  ),
  'http://b.example/unicode-url': withContext('http://b.example/unicode-url', 'http://ctx.example/ü.jsonld'),
  'http://b.example/long-url': withContext('http://b.example/long-url', LONG_CONTEXT),
  // and context URLs that are no URL to fetch: no host, another scheme
  'http://b.example/hostless-url': withContext('http://b.example/hostless-url', 'http://[bad/ctx.jsonld'),
  'http://b.example/ftp-url': withContext('http://b.example/ftp-url', 'ftp://ctx.example/ctx.jsonld'),
  'http://ctx.example/%C3%BC.jsonld': contextBody(`{"@context": {"name": "${NAME}"}}`),
  'http://ctx.example/%EF%BF%BD.jsonld': contextBody(`{"@context": {"name": "http://example.org/replaced"}}`),
  [LONG_CONTEXT]: contextBody(`{"@context": {"name": "http://example.org/long"}}`),
  // N-Triples: NUL in literals (escaped, raw), then escaped in an IRI (an error: statements before it kept)
  'http://c.example/nul.nt': nt(
    `<http://c.example/nul.nt> <${TITLE}> "escaped\\u0000nul" .\n`,
    `<http://c.example/nul.nt> <${TITLE}> "raw`,
    [0],
    `nul" .\n`,
    `<http://c.example/nul.nt> <${RELATION}> <http://c.example/x\\u0000y> .\n`,
  ),
  // N-Triples with invalid UTF-8 in a literal and an IRI, and an escaped lone surrogate
  'http://c.example/utf8.nt': nt(
    `<http://c.example/utf8.nt> <${TITLE}> "bad `,
    [0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80],
    ` bytes" .\n<http://c.example/utf8.nt> <${RELATION}> <http://c.example/`,
    [0xe9],
    `> .\n<http://c.example/utf8.nt> <${TITLE}> "lone \\uD800 surrogate" .\n`,
  ),
  // links and a redirect longer than a btree entry
  'http://c.example/long-links.nt': nt(
    `<http://c.example/long-links.nt> <${RELATION}> <${LONG_LINK}> .\n`,
    `<http://c.example/long-links.nt> <${RELATION}> <http://c.example/to-long> .\n`,
  ),
  'http://c.example/to-long': { status: 302, headers: { location: LONG_REDIRECT } },
  [LONG_LINK]: nt(`<${LONG_LINK}> <${TITLE}> "a long link" .\n`),
  [LONG_SEED]: nt(
    `<${LONG_SEED}> <${TITLE}> "a long seed" .\n<${LONG_SEED}> <${RELATION}> <${LONG_LINK}> .\n`,
  ),
  [LONG_REDIRECT]: nt(`<${LONG_REDIRECT}> <${TITLE}> "a long redirect target" .\n`),
  // Latin-1 bytes in a header and in a redirect's Location
  'http://e.example/latin1': {
    ...nt(`<http://e.example/latin1> <${TITLE}> "latin-1 header" .\n`),
    headers: { 'x-note': 'caf\u00e9 \u00ff' },
  },
  'http://e.example/moved': { status: 301, headers: { location: '/targ\u00e9t' } },
  'http://e.example/targ%C3%A9t': nt(`<http://e.example/targ%C3%A9t> <${TITLE}> "moved" .\n`),
};

/** robots.txt per host: NUL bytes and invalid UTF-8 in c.example's (its rules still read). */
const ROBOTS: Record<string, Buffer> = {
  'c.example': bytes('User-agent: *\nDisallow: /pri', [0], 'vate\n# ', [0xff, 0xfe], '\nDisallow: /hidden\n'),
};

const KERNEL = [
  'http://a.example/nul-context',
  'http://a.example/utf8-context',
  'http://a.example/surrogate-context',
  'http://b.example/nul-url',
  'http://b.example/surrogate-url',
  'http://b.example/unicode-url',
  'http://b.example/long-url',
  'http://b.example/hostless-url',
  'http://b.example/ftp-url',
  'http://c.example/nul.nt',
  'http://c.example/utf8.nt',
  'http://c.example/long-links.nt',
  LONG_SEED,
  'http://e.example/latin1',
  'http://e.example/moved',
];

let web: TestServer;
let pg: TestPostgres;
let config: CrawlConfig;
/** The published week: in one process, and through the coordinator. */
let one: string;
let two: string;

function week(root: string, crawl?: ReturnType<typeof coordinatedCrawl>) {
  return runWeeklySnapshot({
    root,
    config,
    logger: silentLogger,
    clock: clockStartingAt(W0),
    kernel: KERNEL,
    adaptiveRounds: 1,
    crawl,
  });
}

before(async () => {
  pg = await startPostgres();
  web = await startServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (req.url === '/robots.txt') {
      const robots = ROBOTS[host];
      return void (robots
        ? res.writeHead(200, { 'content-type': 'text/plain' }).end(robots)
        : res.writeHead(404).end());
    }
    const page = WEB[`http://${host}${req.url}`];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(page.status ?? 200, {
      ...(page.type ? { 'content-type': page.type } : {}),
      ...page.headers,
    });
    res.end(page.body);
  });
  // two PLDs per worker at most: neither holds them all, so both crawl
  config = configFor(web.port, { delayMs: 5, concurrency: 2 });
  one = freshRoot('hostile-one-');
  assert.equal((await week(one)).status, 'published');
  const url = await pg.database('hostile_text');
  two = freshRoot('hostile-two-');
  const { outcome, recorded } = await withWorkers(url, 2, () => week(two, coordinatedCrawl(url)));
  assert.equal(outcome.status, 'published');
  assert.equal(recorded.filter((n) => n > 0).length, 2, `recorded per worker: ${recorded}`);
});

after(async () => {
  await web?.close();
  await pg?.stop();
});

test('the Web holds what the comparison is about: NUL bytes, invalid UTF-8, lone surrogates and long URLs in the published rows', async () => {
  const folder = join(one, WEEK1);
  const docs = await queryFolder(
    folder,
    `SELECT url, coalesce(error, '-'), statements FROM {documents} WHERE url NOT LIKE '%long.example%' ORDER BY url`,
  );
  const line = (url: string) => docs.find((d) => d.startsWith(`${url} `)) ?? `${url} missing`;
  // the NUL context is read and fails to parse as JSON, in both modes alike
  assert.match(line('http://a.example/nul-context'), / parse 0$/);
  assert.match(line('http://a.example/utf8-context'), / - [1-9]/);
  assert.match(line('http://c.example/nul.nt'), / parse [1-9]/);
  const quads = await queryFolder(
    folder,
    `SELECT object FROM {quads} WHERE graph = 'http://c.example/nul.nt'`,
  );
  assert.ok(
    quads.some((q) => q.includes('\u0000')),
    'a literal holding NUL',
  );
  const long = await queryFolder(
    folder,
    `SELECT round, length(url), coalesce(error, '-') FROM {documents} WHERE url LIKE '%long.example%' ORDER BY 1, 2`,
  );
  // the long seed, and the long link fetched in round 1
  assert.deepEqual(long, [`0 ${LONG_SEED.length} -`, `1 ${LONG_LINK.length} -`]);
});

test('one process and two workers through the coordinator publish the same rows in every table and the same archive', async () => {
  for (const table of TABLE_NAMES) {
    const [a, b] = [await tableRows(join(one, WEEK1), table), await tableRows(join(two, WEEK1), table)];
    // a first week's delta is empty: nothing earlier to compare with
    assert.ok(a.length > 0 || table === 'delta', table);
    assert.deepEqual(firstDifferences(a, b, 20), [], table);
  }
  assert.deepEqual(
    firstDifferences(await archiveRecords(join(one, WEEK1)), await archiveRecords(join(two, WEEK1))),
    [],
  );
});
