/**
 * Remote JSON-LD contexts under the distributed politeness rule: every document of a Web of many
 * PLDs names a remote context on one of two hosts that are crawled PLDs too, each host's documents
 * naming the other's context (their holders wait for each other's: workers lease PLDs in name
 * order, so these two first); the other documents name a context on a third host that has no
 * documents (no worker holds it but to fetch the context). Whichever worker parses a document, a
 * context host must see its requests a delay apart (its documents, its robots.txt and the
 * context), and its robots.txt and context read once; the statements are those of one process.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { crawlConfig, parseResolveRule } from '../../pipeline/core/index.ts';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import { politenessViolations } from '../crawl/sim-crawl.ts';
import { publishedContent } from '../soak/published-content.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import {
  assertThreeWorkersPublish,
  freshRoot,
  oneProcessWeek,
  requestEntry,
  type WeekRun,
} from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
const DELAY = 250;
const CONTEXT_HOSTS = ['a-vocab.test', 'b-terms.test'];
const UNCRAWLED_HOST = 'z-schema.test';
const PLDS = [...CONTEXT_HOSTS, ...Array.from({ length: 10 }, (_, i) => `site${i}.test`)];
const contextOf = (host: string) => `http://${host}/context.jsonld`;
const PER_PLD = 3;

let pg: TestPostgres;
let server: Server;
let week: WeekRun;
let log: RequestLogEntry[] = [];

const documentUrl = (pld: string, i: number) => `http://${pld}/doc${i}`;

/**
 * A document naming remote contexts (a context host's documents the other host's, the others one
 * of those and the uncrawled host's), and linking the next PLD's document of the same number.
 */
function documentBody(pld: string, i: number): string {
  const at = PLDS.indexOf(pld);
  const next = PLDS[(at + 1) % PLDS.length];
  const context = contextOf(CONTEXT_HOSTS[(at + 1) % 2]);
  return JSON.stringify({
    '@context': CONTEXT_HOSTS.includes(pld) ? context : [contextOf(UNCRAWLED_HOST), context],
    '@id': documentUrl(pld, i),
    name: `${pld} ${i}`,
    seeAlso: { '@id': documentUrl(next, i) },
  });
}

before(async () => {
  pg = await startPostgres();
  server = createServer((req, res) => {
    const entry = requestEntry(log.length + 1, req);
    log.push(entry);
    const { host, path } = entry;
    if (path === '/robots.txt')
      return void res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('User-agent: *\nDisallow: /private\n');
    if ([...CONTEXT_HOSTS, UNCRAWLED_HOST].includes(host) && path === '/context.jsonld') {
      const context = {
        '@context': {
          name: 'http://xmlns.com/foaf/0.1/name',
          seeAlso: { '@id': 'http://www.w3.org/2000/01/rdf-schema#seeAlso', '@type': '@id' },
        },
      };
      return void res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify(context));
    }
    const match = /^\/doc(\d+)$/.exec(path);
    if (PLDS.includes(host) && match && Number(match[1]) < PER_PLD) {
      return void res
        .writeHead(200, { 'content-type': 'application/ld+json' })
        .end(documentBody(host, Number(match[1])));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  week = {
    kernel: PLDS.flatMap((pld) => Array.from({ length: PER_PLD }, (_, i) => documentUrl(pld, i))),
    at: W0,
    adaptiveRounds: 0,
    config: crawlConfig({
      resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
      allowPrivate: true,
      delayMs: DELAY,
      timeoutMs: 3000,
      maxAttempts: 1,
      // few leases per worker, so that the context host's holder is rarely the document's
      concurrency: 3,
    }),
  };
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await pg?.stop();
});

/** The simulated Web's clock is not used here; the weekly runs only need `setClock`. */
const web = { setClock: () => {} } as unknown as Parameters<typeof oneProcessWeek>[0];

test('three workers keep the context hosts a delay apart, read their robots.txt and contexts once and publish the one-process statements', async () => {
  log = [];
  const reference = freshRoot('contexts-one-');
  assert.equal((await oneProcessWeek(web, reference, week)).status, 'published');
  assert.deepEqual(politenessViolations(log, DELAY), []);
  const expected = await publishedContent(join(reference, '2026-01-05'));
  assert.equal(expected.documents.length, PLDS.length * PER_PLD);

  log = [];
  const root = freshRoot('contexts-three-');
  const url = await pg.database('contexts');
  const content = await assertThreeWorkersPublish(web, root, week, url, expected);
  // the context's names became statements (a failed context leaves the document without them)
  assert.ok(content.quads.some((q) => q.includes('http://xmlns.com/foaf/0.1/name')));

  assert.deepEqual(politenessViolations(log, DELAY), []);
  for (const host of [...CONTEXT_HOSTS, UNCRAWLED_HOST]) {
    const paths = log.filter((e) => e.host === host).map((e) => e.path);
    assert.equal(paths.filter((p) => p === '/robots.txt').length, 1, host);
    assert.equal(paths.filter((p) => p === '/context.jsonld').length, 1, host);
  }
});
