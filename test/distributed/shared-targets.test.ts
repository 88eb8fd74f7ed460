/**
 * The same snapshot in every mode on a Web whose redirect targets are shared (issue #30). Term URIs
 * of vocabularies redirect to their vocabulary document, on their own PLD or another one, and that
 * document is a seed, a link of an earlier round, a link of the same round as the redirect, or
 * reached through redirects alone (the DCMI terms document on the real Web); a chain crosses three
 * PLDs and another comes back to where it started. Crawled in one process and through the
 * coordinator with two workers, the published tables must agree row by row. Through the
 * coordinator the DCMI document had a documents row of its own, which one process does not write.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CrawlConfig, clockStartingAt, silentLogger } from '../../pipeline/core/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { sqlString } from '../../pipeline/snapshot/index.ts';
import { firstDifferences } from '../soak/published-content.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { queryFolder as query, tableRows as rows, TABLE_NAMES } from './published-rows.ts';
import { freshRoot, withWorkers } from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';

const DC = 'http://purl.org/dc/terms/';
/** Where DCMI term URIs lead: a document on another PLD that nothing links. */
const DCMI_DOC = 'http://www.dublincore.org/specifications/dublin-core/dcmi-terms/terms.ttl';
const FOAF = 'http://xmlns.com/foaf/0.1/';
/** FOAF's terms lead to a document on their own PLD. */
const FOAF_DOC = 'http://xmlns.com/foaf/spec/index.nt';
/** A vocabulary document that is a seed; its terms (round 1) lead to it from another PLD. */
const ONTO_DOC = 'http://onto.example.org/onto.nt';
/** Linked by a seed while another seed's redirect (both round 0) leads to it from another PLD. */
const RACED_DOC = 'http://data.delta.org/doc/1';
/** A vocabulary document linked by a seed (fetched in round 1); its terms are fetched in round 2. */
const EPS_DOC = 'http://vocab.epsilon.org/schema.nt';
/** The end of a chain through three PLDs. */
const CHAIN_END = 'http://data.eta.org/x.nt';

type Page = { readonly redirect: readonly [number, string] } | { readonly nt: readonly string[] };

const TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const PROPERTY = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#Property';
const triple = (s: string, p: string, o: string) =>
  `<${s}> <${p}> ${o.startsWith('http') ? `<${o}>` : `"${o}"`} .`;
/** A vocabulary document: its title and its terms (each term URI a link back to where it leads). */
const vocabulary = (doc: string, ns: string, names: readonly string[], more: readonly string[] = []) => ({
  nt: [
    triple(doc, `${DC}title`, `the vocabulary at ${doc}`),
    ...names.map((n) => triple(`${ns}${n}`, TYPE, PROPERTY)),
    ...more,
  ],
});
/** A data document: a title, and links to `to`. */
const data = (url: string, to: readonly string[] = []) => ({
  nt: [triple(url, `${DC}title`, `document ${url}`), ...to.map((o) => triple(url, `${DC}relation`, o))],
});
const redirect = (status: number, to: string): Page => ({ redirect: [status, to] });

/** The Web, one line per URL (every host answers on the test server; robots.txt is a 404). */
const WEB: Record<string, Page> = {
  'http://data.alpha.org/person/1': {
    nt: [
      triple('http://data.alpha.org/person/1', `${DC}creator`, 'Ada'),
      triple('http://data.alpha.org/person/1', `${FOAF}name`, 'Ada'),
      triple('http://data.alpha.org/person/1', `${DC}subject`, 'http://w3id.org/onto/Thing'),
      triple('http://data.alpha.org/person/1', `${DC}relation`, 'http://purl.org/net/moved'),
      triple('http://data.alpha.org/person/1', `${DC}relation`, 'http://purl.org/net/loop'),
    ],
  },
  'http://data.beta.net/place/1': {
    nt: [
      triple('http://data.beta.net/place/1', `${DC}license`, RACED_DOC),
      triple('http://data.beta.net/place/1', `${FOAF}knows`, 'http://data.gamma.org/start'),
      triple('http://data.beta.net/place/1', 'http://w3id.org/onto/part', 'http://data.beta.net/place/2'),
    ],
  },
  'http://data.alpha.org/alias': redirect(303, RACED_DOC),
  [RACED_DOC]: data(RACED_DOC, ['http://data.delta.org/doc/2']),
  'http://data.delta.org/doc/2': data('http://data.delta.org/doc/2'),
  'http://data.gamma.org/start': data('http://data.gamma.org/start', [EPS_DOC, 'http://data.gamma.org/hub']),
  'http://data.gamma.org/hub': data('http://data.gamma.org/hub', [
    'http://purl.example.com/eps/a',
    'http://purl.example.com/eps/b',
  ]),
  'http://data.alpha.org/person/2': data('http://data.alpha.org/person/2', [
    'http://data.alpha.org/person/3',
  ]),
  'http://data.alpha.org/person/3': data('http://data.alpha.org/person/3'),
  'http://data.beta.net/place/2': data('http://data.beta.net/place/2', ['http://data.beta.net/place/3']),
  'http://data.beta.net/place/3': data('http://data.beta.net/place/3', ['http://zz.example.net/late']),
  'http://zz.example.net/late': data('http://zz.example.net/late'),
  'http://data.zeta.org/a': data('http://data.zeta.org/a', ['http://data.zeta.org/b']),
  'http://data.zeta.org/b': data('http://data.zeta.org/b', ['http://data.zeta.org/c']),
  'http://data.zeta.org/c': data('http://data.zeta.org/c'),
  ...Object.fromEntries(
    ['title', 'creator', 'subject', 'license', 'relation'].map((t) => [`${DC}${t}`, redirect(302, DCMI_DOC)]),
  ),
  // the DCMI document links the namespace document: a link of the row that downloaded it, at its depth
  [DCMI_DOC]: vocabulary(
    DCMI_DOC,
    DC,
    ['title', 'creator', 'subject', 'license', 'relation'],
    [triple(DC, `${DC}title`, 'DCMI Metadata Terms')],
  ),
  [DC]: data(DC),
  [`${FOAF}name`]: redirect(303, FOAF_DOC),
  [`${FOAF}knows`]: redirect(303, FOAF_DOC),
  [FOAF_DOC]: vocabulary(FOAF_DOC, FOAF, ['name', 'knows']),
  [ONTO_DOC]: vocabulary(ONTO_DOC, 'http://w3id.org/onto/', ['Thing', 'part']),
  'http://w3id.org/onto/Thing': redirect(301, ONTO_DOC),
  'http://w3id.org/onto/part': redirect(301, ONTO_DOC),
  [EPS_DOC]: vocabulary(EPS_DOC, 'http://purl.example.com/eps/', ['a', 'b']),
  'http://purl.example.com/eps/a': redirect(302, EPS_DOC),
  'http://purl.example.com/eps/b': redirect(302, EPS_DOC),
  'http://purl.org/net/moved': redirect(302, 'http://w3id.org/x2'),
  'http://w3id.org/x2': redirect(303, CHAIN_END),
  [CHAIN_END]: data(CHAIN_END, ['http://data.eta.org/y.nt']),
  'http://data.eta.org/y.nt': data('http://data.eta.org/y.nt'),
  'http://purl.org/net/loop': redirect(302, 'http://w3id.org/loop'),
  'http://w3id.org/loop': redirect(302, 'http://purl.org/net/loop'),
};

/** Documents without links: the budget (twice the kernel) then takes round 1 whole and cuts round 2. */
const FILLERS = Array.from({ length: 17 }, (_, i) => `http://data.theta.org/n${i}`);
for (const url of FILLERS) WEB[url] = data(url);

const KERNEL = [
  'http://data.alpha.org/person/1',
  'http://data.beta.net/place/1',
  'http://data.alpha.org/alias',
  ONTO_DOC,
  'http://data.gamma.org/start',
  'http://data.alpha.org/person/2',
  'http://data.beta.net/place/2',
  'http://data.zeta.org/a',
  ...FILLERS,
];

let web: TestServer;
let pg: TestPostgres;
let config: CrawlConfig;
/** The published week: in one process, and through the coordinator. */
let one: string;
let two: string;

/** The weekly snapshot of KERNEL under `root`, crawled by `crawl` (one process when absent). */
function week(root: string, crawl?: ReturnType<typeof coordinatedCrawl>) {
  return runWeeklySnapshot({
    root,
    config,
    logger: silentLogger,
    clock: clockStartingAt(W0),
    kernel: KERNEL,
    adaptiveRounds: 2,
    crawl,
  });
}

before(async () => {
  pg = await startPostgres();
  web = await startServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const page = WEB[`http://${host}${req.url}`];
    if (!page) return void res.writeHead(404).end();
    if ('redirect' in page) return void res.writeHead(page.redirect[0], { location: page.redirect[1] }).end();
    const body = `${page.nt.join('\n')}\n`;
    res.writeHead(200, { 'content-type': 'application/n-triples', etag: `"${body.length}"` }).end(body);
  });
  // four PLDs per worker at most: neither worker can hold them all, so both crawl
  config = configFor(web.port, { delayMs: 5, concurrency: 4 });
  one = freshRoot('shared-one-');
  assert.equal((await week(one)).status, 'published');
  const url = await pg.database('shared_targets');
  two = freshRoot('shared-two-');
  const { outcome, recorded } = await withWorkers(url, 2, () => week(two, coordinatedCrawl(url)));
  assert.equal(outcome.status, 'published');
  assert.deepEqual(recorded.filter((n) => n > 0).length, 2, `recorded per worker: ${recorded}`);
});

after(async () => {
  await web?.close();
  await pg?.stop();
});

test('the Web has what the comparison is about: one row per URL asked for, none for a URL reached by redirects alone', async () => {
  const docs = await query(
    join(one, WEEK1),
    `SELECT round, url, final_url, downloaded_by, redirects, coalesce(error, '-') FROM {documents}
     WHERE url IN (${[
       `${DC}relation`,
       `${DC}title`,
       `${FOAF}name`,
       'http://w3id.org/onto/Thing',
       'http://data.alpha.org/alias',
       'http://purl.example.com/eps/a',
       'http://purl.org/net/moved',
       'http://purl.org/net/loop',
       DC,
     ]
       .map(sqlString)
       .join(', ')}) ORDER BY url`,
  );
  assert.deepEqual(docs, [
    `0 http://data.alpha.org/alias ${RACED_DOC} http://data.alpha.org/alias 1 -`,
    `2 http://purl.example.com/eps/a ${EPS_DOC} ${EPS_DOC} 1 -`,
    `2 ${DC} ${DC} ${DC} 0 -`,
    // title has the most in-links, so its fetch comes first and downloads the DCMI document
    `1 ${DC}relation ${DCMI_DOC} ${DC}title 1 -`,
    `1 ${DC}title ${DCMI_DOC} ${DC}title 1 -`,
    '1 http://purl.org/net/loop http://w3id.org/loop http://purl.org/net/loop 2 redirect_loop',
    `1 http://purl.org/net/moved ${CHAIN_END} http://purl.org/net/moved 2 -`,
    `1 http://w3id.org/onto/Thing ${ONTO_DOC} ${ONTO_DOC} 1 -`,
    `1 ${FOAF}name ${FOAF_DOC} ${FOAF}knows 1 -`,
  ]);
  const reachedByRedirects = [
    DCMI_DOC,
    FOAF_DOC,
    RACED_DOC,
    'http://w3id.org/x2',
    CHAIN_END,
    'http://w3id.org/loop',
  ];
  const own = await query(
    join(one, WEEK1),
    `SELECT url FROM {documents} WHERE url IN (${reachedByRedirects.map(sqlString).join(', ')})`,
  );
  assert.deepEqual(own, []);
  // the budget cut round 2: the last candidate by the frontier's order stayed out
  assert.deepEqual(await query(join(one, WEEK1), `SELECT max(round), count(*) FROM {documents}`), ['2 50']);
});

test('one process and two workers through the coordinator publish the same rows in every table', async () => {
  for (const table of TABLE_NAMES) {
    const [a, b] = [await rows(join(one, WEEK1), table), await rows(join(two, WEEK1), table)];
    // a first week's delta is empty: nothing earlier to compare with
    assert.ok(a.length > 0 || table === 'delta', table);
    assert.deepEqual(firstDifferences(a, b, 20), [], table);
  }
});
