/**
 * The round-end rule through the coordinator: an expansion crawl (no budget) ends a round early
 * once fewer PLDs have URLs waiting than the workers have slots and the candidates bring new PLDs.
 * Round 1 holds one slow PLD (many URLs, one a delay) and one fast PLD whose document links a new
 * PLD: that PLD's URL joins round 2 and is fetched while the slow PLD's round-1 URLs still wait.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { crawlConfig, parseResolveRule, silentLogger, systemClock } from '../../pipeline/core/index.ts';
import { runExpansion } from '../../pipeline/crawl/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { freshRoot, withWorkers } from './sim-distributed.ts';

const DELAY = 200;
const SLOW_PAGES = 20;
const triple = (s: string, p: string, o: string) => `<${s}> <${p}> <${o}> .\n`;

/** Each host's documents (N-Triples); predicates on the document's own PLD, so they bring no new PLD. */
const DOCUMENTS: Record<string, string> = {
  'http://hub.test/':
    Array.from({ length: SLOW_PAGES }, (_, i) =>
      triple('http://hub.test/', 'http://hub.test/link', `http://slow.test/p${i}`),
    ).join('') + triple('http://hub.test/', 'http://hub.test/link', 'http://fast.test/a'),
  'http://fast.test/a': triple('http://fast.test/a', 'http://next.test/link', 'http://next.test/b'),
  'http://next.test/b': triple('http://next.test/b', 'http://next.test/link', 'http://next.test/b'),
  ...Object.fromEntries(
    Array.from({ length: SLOW_PAGES }, (_, i) => [
      `http://slow.test/p${i}`,
      triple(`http://slow.test/p${i}`, 'http://slow.test/link', `http://slow.test/p${i}`),
    ]),
  ),
};

let pg: TestPostgres;
let server: Server;
let port: number;
const requests: string[] = [];

before(async () => {
  pg = await startPostgres();
  server = createServer((req, res) => {
    const url = `http://${(req.headers.host ?? '').split(':')[0]}${req.url}`;
    requests.push(url);
    const body = DOCUMENTS[url];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/n-triples' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await pg?.stop();
});

test('an expansion through the coordinator starts the next round while a slow PLD still has URLs waiting', async () => {
  const url = await pg.database('round_end');
  const { outcome } = await withWorkers(url, 1, () =>
    runExpansion({
      seeds: ['http://hub.test/'],
      repeat: 1,
      hops: 2,
      archive: false,
      workDir: freshRoot('round-end-'),
      config: crawlConfig({
        resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
        allowPrivate: true,
        delayMs: DELAY,
        timeoutMs: 3000,
        maxAttempts: 1,
        concurrency: 2,
      }),
      policy: 'longest-first',
      clock: systemClock,
      logger: silentLogger,
      crawl: coordinatedCrawl(url),
    }),
  );
  assert.equal(outcome.complete, true);
  const documents = requests.filter((r) => !r.endsWith('/robots.txt'));
  const lastSlow = documents.findLastIndex((r) => r.startsWith('http://slow.test/'));
  const next = documents.indexOf('http://next.test/b');
  assert.ok(next >= 0, 'the round-2 URL was fetched');
  // without the rule round 2 starts only once the slow PLD's 20 URLs (4 s at least) are done
  assert.ok(next < lastSlow, `round 2 began before round 1 ended: ${documents.join(' ')}`);
});
