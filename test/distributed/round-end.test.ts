/**
 * The round-end rule through the coordinator: an expansion crawl (no budget) ends a round early
 * once fewer PLDs have URLs waiting than the live workers have slots and the candidates bring new
 * PLDs. Round 1 holds one slow PLD (many URLs) and one fast PLD whose document links a new PLD:
 * that PLD's URL joins round 2 and is fetched while the slow PLD's round-1 URLs still wait. The
 * server holds the slow PLD's answers (all but the first) until the new PLD's URL was requested,
 * so the verdict depends on no timing: with the rule, that request comes while they are held;
 * without it, only once they were let go (after HOLD_MS) and every slow URL was fetched.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  type CrawlConfig,
  crawlConfig,
  parseResolveRule,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { runExpansion } from '../../pipeline/observe/index.ts';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { freshRoot, withWorkers } from './sim-distributed.ts';

const DELAY = 200;
const SLOW_PAGES = 20;
/** How long the slow PLD's answers are held at most (the round-2 URL lets them go at once). */
const HOLD_MS = 15_000;
const NEXT = 'http://next.test/b';
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
let requests: string[] = [];
/** Lets the held slow answers go; set anew for each crawl. */
let release: () => void = () => {};
let released: Promise<void> = Promise.resolve();

/** A fresh request log, and slow answers held again. */
function resetWeb(): void {
  requests = [];
  released = new Promise<void>((resolve) => {
    release = resolve;
    setTimeout(resolve, HOLD_MS).unref();
  });
}

before(async () => {
  pg = await startPostgres();
  server = createServer(async (req, res) => {
    const url = `http://${(req.headers.host ?? '').split(':')[0]}${req.url}`;
    requests.push(url);
    if (url === NEXT) release();
    const body = DOCUMENTS[url];
    if (body === undefined) return void res.writeHead(404).end();
    const slowPage = url.startsWith('http://slow.test/p');
    if (slowPage && requests.filter((r) => r.startsWith('http://slow.test/p')).length > 1) await released;
    res.writeHead(200, { 'content-type': 'application/n-triples' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await pg?.stop();
});

/** The crawl config of these expansions, with `concurrency` slots. */
function config(concurrency: number): CrawlConfig {
  return crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: DELAY,
    // longer than the slow answers are held at most
    timeoutMs: 2 * HOLD_MS,
    maxAttempts: 1,
    concurrency,
  });
}

/** One expansion crawl of the hub, two hops (through the coordinator at `url`, else in one process). */
async function expand(crawlConfig: CrawlConfig, url?: string) {
  resetWeb();
  const outcome = await runExpansion({
    seeds: ['http://hub.test/'],
    repeat: 1,
    hops: 2,
    archive: false,
    workDir: freshRoot('round-end-'),
    config: crawlConfig,
    clock: systemClock,
    logger: silentLogger,
    ...(url ? { crawl: coordinatedCrawl(url) } : {}),
  });
  assert.equal(outcome.complete, true);
}

/** Asserts that round 2's URL was requested before the slow PLD's last round-1 URL. */
function assertRoundEndedEarly(): void {
  const documents = requests.filter((r) => !r.endsWith('/robots.txt'));
  const isSlowPage = (r: string) => r.startsWith('http://slow.test/p');
  const lastSlow = documents.findLastIndex(isSlowPage);
  const next = documents.indexOf(NEXT);
  assert.ok(next >= 0, 'the round-2 URL was fetched');
  assert.equal(documents.filter(isSlowPage).length, SLOW_PAGES, documents.join(' '));
  // without the rule round 2 starts only once the slow PLD's 20 URLs are done
  assert.ok(next < lastSlow, `round 2 began before round 1 ended: ${documents.join(' ')}`);
}

test('an expansion through the coordinator starts the next round while a slow PLD still has URLs waiting', async () => {
  const url = await pg.database('round_end');
  await withWorkers(url, 1, () => expand(config(2), url));
  assertRoundEndedEarly();
});

test('a live worker holding no lease counts its slots: two workers of 1 slot end the round as one process of 2', async () => {
  // one process with 2 slots: once the fast PLD is done, 1 PLD active < 2 slots ends round 1
  await expand(config(2));
  assertRoundEndedEarly();
  // two workers of 1 slot each: one holds the slow PLD, the other, done with the fast one, holds
  // none; counted by their leases the slots were 1, and round 1 ran out before round 2 began
  const url = await pg.database('round_end_idle');
  await withWorkers(url, 2, () => expand(config(1), url));
  assertRoundEndedEarly();
});
