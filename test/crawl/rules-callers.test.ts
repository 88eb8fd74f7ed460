/**
 * The crawl's shared rules through every caller that applies them, one table of cases: the round-end
 * rule and the link budget (pipeline/crawl/rules.ts), the PLD ranking (policy.ts), the retry set and
 * Retry-After (pipeline/web/retry.ts). Each case is answered by the callers' real code paths, each
 * answer the same plain value: the in-process crawl (runCrawl) and the PostgreSQL coordinator with
 * one worker, both over real HTTP on 127.0.0.1 and read off the server's request log; the estimator
 * by its replay (simulateCrawl) and by what it reads from a published history (readHistoryStats). A
 * caller that does not apply a rule is left out of that case, with the reason. test/crawl/rules.test.ts
 * holds the rules' own unit cases.
 *
 * The answers depend on no timing: a round's early end is made visible by holding the slow PLD's
 * answers until the next round's URL is requested (or, for a case that must not end early, by
 * nothing: its next round cannot start before the slow PLD's URLs are done); the ranking case's
 * delay is far longer than a local answer, and each choice it checks is decided by the order of
 * events, not by their spacing; the retry waits are checked from below, as politeness is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type CrawlConfig,
  crawlConfig,
  parseResolveRule,
  silentLogger,
  systemClock,
} from '../../pipeline/core/index.ts';
import {
  type CrawlPlan,
  createCrawlTools,
  readJournalDocuments,
  runCrawl,
} from '../../pipeline/crawl/index.ts';
import { coordinatedCrawl } from '../../pipeline/distributed/index.ts';
import { readHistoryStats } from '../../pipeline/schedule/estimate/history-stats.ts';
import { fetchTime } from '../../pipeline/schedule/estimate/profile.ts';
import { type SimJob, simulateCrawl } from '../../pipeline/schedule/estimate/simulate.ts';
import { publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { startPostgres, type TestPostgres } from '../distributed/postgres.ts';
import { withWorkers } from '../distributed/sim-distributed.ts';
import { planFor } from './sim-crawl.ts';

type Caller = 'crawl' | 'coordinator' | 'estimator';
/** The two callers that crawl over HTTP. */
type Crawler = Exclude<Caller, 'estimator'>;

// --- the Web: one server, a route per URL, every request logged ------------------------------------

type Route = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
const routes = new Map<string, Route>();
/** Every request the server got, in arrival order, with when (performance.now()). */
const requests: { readonly url: string; readonly host: string; readonly at: number }[] = [];
let server: Server;
let port: number;
let postgres: Promise<TestPostgres> | undefined;

before(async () => {
  server = createServer(async (req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    const url = `http://${host}${req.url}`;
    requests.push({ url, host, at: performance.now() });
    const route = routes.get(url);
    if (route === undefined) return void res.writeHead(404).end();
    await route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await (await postgres)?.stop();
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

/** The crawls' journal folders and the history's root, removed at the end. */
const folders: string[] = [];

/** A fresh folder under the system's temporary one. */
function freshFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}

const triple = (s: string, p: string, o: string) => `<${s}> <${p}> <${o}> .\n`;

/** Serves `body` as N-Triples at `url`. */
function document(url: string, body: string, wait?: () => Promise<void>): void {
  routes.set(url, async (_req, res) => {
    await wait?.();
    res.writeHead(200, { 'content-type': 'application/n-triples' }).end(body);
  });
}

/** The document requests (robots.txt left out) to hosts starting with `prefix`, in arrival order. */
const documentRequests = (prefix: string) =>
  requests.filter((r) => r.host.startsWith(prefix) && !r.url.endsWith('/robots.txt'));

// --- the callers that crawl ---------------------------------------------------------------------------

/** A config for the Web above: every host is this server. */
function config(over: Partial<CrawlConfig>): CrawlConfig {
  return crawlConfig({ resolve: [parseResolveRule(`*=127.0.0.1:${port}`)], allowPrivate: true, ...over });
}

/** Crawls `plan` in one process or through the coordinator (its own database, one worker); returns the journal's folder. */
async function crawlWith(
  caller: Crawler,
  name: string,
  crawl: CrawlConfig,
  plan: CrawlPlan,
): Promise<string> {
  const dir = freshFolder(`rules-${name}-`);
  const tools = createCrawlTools(crawl, systemClock);
  const options = {
    plan,
    config: crawl,
    fetcher: tools.fetcher,
    loadContext: tools.loadContext,
    dir,
    clock: systemClock,
    logger: silentLogger,
  };
  try {
    if (caller === 'crawl') {
      assert.equal((await runCrawl(options)).complete, true);
    } else {
      postgres ??= startPostgres();
      const url = await (await postgres).database(name.replaceAll('-', '_'));
      const { outcome } = await withWorkers(url, 1, () => coordinatedCrawl(url)(options, name));
      assert.equal(outcome.complete, true);
    }
  } finally {
    await tools.close();
  }
  return dir;
}

/** `run` once per key, its promise shared by every case that reads it. */
function once<T>(run: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const runs = new Map<string, Promise<T>>();
  return (key) => {
    if (!runs.has(key)) runs.set(key, run(key));
    return runs.get(key)!;
  };
}

// --- round end ----------------------------------------------------------------------------------------

const SLOW_PAGES = 4;
/** The longest the slow PLD's answers are held (the next round's URL lets them go at once). */
const HOLD_MS = 15_000;

/**
 * The hub (round 0) links a slow PLD's pages and a fast PLD's page (round 1); the fast page links
 * a new PLD's page (round 2). Answer: was the round-2 page requested before the slow PLD's last
 * round-1 page, i.e. did round 1 end early? With `hold`, the slow PLD's answers after its first
 * wait until the round-2 page is asked for.
 */
async function roundEndedEarly(
  caller: Crawler,
  name: string,
  over: Partial<CrawlConfig>,
  { hold, budgeted }: { hold: boolean; budgeted: boolean },
): Promise<boolean> {
  const host = (part: string) => `${caller}-${name}-${part}.test`;
  const hub = `http://${host('hub')}/`;
  const slow = Array.from({ length: SLOW_PAGES }, (_, i) => `http://${host('slow')}/p${i}`);
  const fast = `http://${host('fast')}/a`;
  const next = `http://${host('next')}/b`;
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
    setTimeout(resolve, HOLD_MS).unref();
  });
  let slowAnswers = 0;
  const held = async () => {
    if (hold && slowAnswers++ > 0) await released;
  };
  document(hub, [...slow, fast].map((page) => triple(hub, `${hub}link`, page)).join(''));
  for (const page of slow) document(page, triple(page, `${page}#p`, page), held);
  document(fast, triple(fast, `${fast}#p`, next));
  routes.set(next, (_req, res) => {
    release();
    res.writeHead(200, { 'content-type': 'application/n-triples' }).end(triple(next, `${next}#p`, next));
  });
  const plan = { ...planFor([hub], 2), maxDocuments: budgeted ? 100 : Number.POSITIVE_INFINITY };
  await crawlWith(caller, `${caller}-${name}`, config({ delayMs: 100, maxAttempts: 1, ...over }), plan);
  const asked = documentRequests(`${caller}-${name}-`).map((r) => r.url);
  assert.equal(asked.filter((u) => slow.includes(u)).length, SLOW_PAGES, asked.join(' '));
  return asked.indexOf(next) < asked.findLastIndex((u) => slow.includes(u));
}

/** The same Web as roundEndedEarly's, replayed by the estimator: the slow pages are long fetches. */
function replayedRoundEnd(concurrency: number): boolean {
  const job = (pld: string, rounds: number[], fetchMs: number[]): SimJob => ({
    pld,
    delayMs: 100,
    rounds,
    fetchMs,
    sent: rounds.map(() => true),
  });
  const jobs = [
    job('hub.test', [0], [10]),
    job('slow.test', Array(SLOW_PAGES).fill(1), [10, ...Array(SLOW_PAGES - 1).fill(HOLD_MS)]),
    job('fast.test', [1], [10]),
    job('next.test', [2], [10]),
  ];
  const { finishMs } = simulateCrawl(jobs, { concurrency, policy: 'longest-first' });
  return finishMs[3] < finishMs[1];
}

// --- link budget --------------------------------------------------------------------------------------

/**
 * Two seeds with a budget of two links each: `links.test/doc` names three other PLDs' pages;
 * `own.test/doc` names itself first (subject, and a predicate that is its URL with a fragment),
 * then three pages. Runs once per caller; answers with the hosts fetched at depth 1.
 */
const linkCrawl = once(async (caller: string) => {
  const p = `${caller}-links`;
  const links = `http://${p}-links.test/doc`;
  const own = `http://${p}-own.test/doc`;
  const page = (host: string) => `http://${p}-${host}.test/x`;
  document(links, ['l1', 'l2', 'l3'].map((h) => triple(links, `${links}#p`, page(h))).join(''));
  document(own, ['o1', 'o2', 'o3'].map((h) => triple(own, `${own}#q`, page(h))).join(''));
  await crawlWith(
    caller as Crawler,
    p,
    config({ delayMs: 100, maxLinksPerDocument: 2, concurrency: 4 }),
    planFor([links, own], 1),
  );
  return documentRequests(`${p}-`)
    .map((r) => r.host.slice(p.length + 1, -'.test'.length))
    .filter((h) => h !== 'links' && h !== 'own')
    .sort();
});

/** The depth-1 hosts that `seed`'s links led to (l* for links.test, o* for own.test). */
const linkedFrom = async (caller: Crawler, seed: 'l' | 'o') =>
  (await linkCrawl(caller)).filter((h) => h.startsWith(seed));

// --- PLD ranking --------------------------------------------------------------------------------------

/** One fetch slot, a long delay, and three PLDs' seeds: a.test one page, b.test three, c.test two. */
const RANKING_DELAY = 500;
const RANKING_PAGES: Readonly<Record<string, number>> = { a: 1, b: 3, c: 2 };

/** The order in which the PLDs' last pages were requested, crawled with `policy`. */
async function rankingCrawl(policy: 'longest-first' | 'round-robin'): Promise<string[]> {
  const p = `crawl-${policy}`;
  const seeds = Object.entries(RANKING_PAGES).flatMap(([pld, pages]) =>
    Array.from({ length: pages }, (_, i) => `http://${p}-${pld}.test/${i}`),
  );
  for (const seed of seeds) document(seed, triple(seed, `${seed}#p`, seed));
  await crawlWith('crawl', p, config({ delayMs: RANKING_DELAY, concurrency: 1, policy }), planFor(seeds, 0));
  return lastFirst(documentRequests(`${p}-`).map((r) => r.host.slice(p.length + 1, -'.test'.length)));
}

/** The distinct values of `served` ordered by their last occurrence. */
function lastFirst(served: readonly string[]): string[] {
  return [...new Set(served)].sort((x, y) => served.lastIndexOf(x) - served.lastIndexOf(y));
}

/** The same three PLDs replayed by the estimator: the first page of each host also fetches robots.txt (delay between). */
function replayedRanking(policy: 'longest-first' | 'round-robin'): string[] {
  const request = 5;
  const jobs: SimJob[] = Object.entries(RANKING_PAGES).map(([pld, pages]) => ({
    pld,
    delayMs: RANKING_DELAY,
    rounds: Array(pages).fill(0),
    fetchMs: Array.from({ length: pages }, (_, i) => (i === 0 ? 2 * request + RANKING_DELAY : request)),
    sent: Array(pages).fill(true),
  }));
  const { finishMs } = simulateCrawl(jobs, { concurrency: 1, policy });
  return jobs
    .map((j, i) => ({ pld: j.pld, at: finishMs[i] }))
    .sort((x, y) => x.at - y.at)
    .map((j) => j.pld);
}

// --- retry and Retry-After ----------------------------------------------------------------------------

const RETRY_DELAY = 100;

/** How each retry case's page answers, every time it is asked. */
const RETRY_ANSWERS: Readonly<Record<string, { status: number; retryAfter?: () => string }>> = {
  seconds: { status: 503, retryAfter: () => '3' },
  date: { status: 429, retryAfter: () => new Date(Date.now() + 4000).toUTCString() },
  backoff: { status: 503 },
  unretried: { status: 404 },
};

const retryConfig = () => config({ delayMs: RETRY_DELAY, maxAttempts: 2, concurrency: 4 });
const retryPage = (caller: Crawler, key: string) => `http://${caller}-retry-${key}.test/doc`;

/** One crawl of every retry case's page per caller; its journal's folder. */
const retryCrawl = once(async (caller: string) => {
  for (const [key, { status, retryAfter }] of Object.entries(RETRY_ANSWERS)) {
    routes.set(retryPage(caller as Crawler, key), (_req, res) => {
      res.writeHead(status, retryAfter ? { 'retry-after': retryAfter() } : {}).end('no\n');
    });
  }
  const seeds = Object.keys(RETRY_ANSWERS).map((key) => retryPage(caller as Crawler, key));
  return crawlWith(caller as Crawler, `${caller}-retry`, retryConfig(), planFor(seeds, 0));
});

/** What a retry case asks: how many requests the page gets, and whether it waits at least `waitMs` before a retry. */
interface RetryAnswer {
  readonly requests: number;
  readonly waited: boolean;
}

async function crawledRetry(caller: Crawler, key: string, waitMs: number): Promise<RetryAnswer> {
  await retryCrawl(caller);
  const asked = documentRequests(`${caller}-retry-${key}.`);
  const gap = asked.length > 1 ? asked[1].at - asked[0].at : 0;
  return { requests: asked.length, waited: gap >= waitMs };
}

/** A crawl's retries published as a snapshot: the estimator's history (of the in-process crawl's). */
const retryHistory = once(async (caller: string) => {
  const dir = await retryCrawl(caller);
  const root = freshFolder('rules-history-');
  const startedAt = Date.UTC(2026, 10, 16);
  await publishSnapshot({
    root,
    name: snapshotName('weekly', startedAt),
    kind: 'weekly',
    startedAt,
    endedAt: startedAt + 60_000,
    config: retryConfig(),
    documents: () => readJournalDocuments(dir),
    clock: systemClock,
  });
  return readHistoryStats(root);
});

/**
 * The estimator's reading of the page's fetch in that history: its requests, and the waits it
 * replays between them (the replayed fetch without its time on the wire, which is what the history
 * left once it took out the waits it read).
 */
async function estimatedRetry(key: string, waitMs: number): Promise<RetryAnswer> {
  const sample = (await retryHistory('crawl')).urls.get(retryPage('crawl', key));
  assert.ok(sample, `the history has ${key}`);
  const waits = fetchTime(sample, RETRY_DELAY, retryConfig()) - sample.requests * sample.requestMs;
  return { requests: sample.requests, waited: waits >= waitMs };
}

// --- the table ----------------------------------------------------------------------------------------

interface Case {
  readonly name: string;
  readonly expected: unknown;
  /** Each caller's answer; a caller missing does not apply the rule (`missing` says why). */
  readonly answers: Partial<Record<Caller, () => Promise<unknown> | unknown>>;
  readonly missing?: string;
}

const bothCrawlers = (answer: (caller: Crawler) => Promise<unknown>) => ({
  crawl: () => answer('crawl'),
  coordinator: () => answer('coordinator'),
});

const retryCase = (name: string, key: string, expected: RetryAnswer, waitMs: number): Case => ({
  name,
  expected,
  answers: {
    ...bothCrawlers((c) => crawledRetry(c, key, waitMs)),
    estimator: () => estimatedRetry(key, waitMs),
  },
});

const CASES: readonly Case[] = [
  {
    name: 'round end: fewer active PLDs than slots and a new PLD next round end the round early',
    expected: true,
    answers: {
      ...bothCrawlers((c) =>
        roundEndedEarly(c, 'early', { concurrency: 2 }, { hold: true, budgeted: false }),
      ),
      estimator: () => replayedRoundEnd(2),
    },
  },
  {
    name: 'round end: as many active PLDs as slots run the round out',
    expected: false,
    answers: {
      ...bothCrawlers((c) =>
        roundEndedEarly(c, 'one-slot', { concurrency: 1 }, { hold: false, budgeted: false }),
      ),
      estimator: () => replayedRoundEnd(1),
    },
  },
  {
    name: 'round end: a crawl with a document budget runs each round out',
    expected: false,
    answers: bothCrawlers((c) =>
      roundEndedEarly(c, 'budget', { concurrency: 2 }, { hold: false, budgeted: true }),
    ),
    missing: 'the estimator replays URL lists, which have no budget',
  },
  {
    name: 'link budget: a document adds at most maxLinks links, in the order of its statements',
    expected: ['l1', 'l2'],
    answers: bothCrawlers((c) => linkedFrom(c, 'l')),
    missing: 'the estimator follows no links',
  },
  {
    name: 'link budget: its own URL (with or without a fragment) is left out and not counted',
    expected: ['o1', 'o2'],
    answers: bothCrawlers((c) => linkedFrom(c, 'o')),
    missing: 'the estimator follows no links',
  },
  {
    name: 'PLD ranking: longest-first serves the most remaining work first (PLDs by their last page)',
    expected: ['a', 'b', 'c'],
    answers: {
      crawl: () => rankingCrawl('longest-first'),
      estimator: () => replayedRanking('longest-first'),
    },
    missing:
      'the coordinator leases a PLD by its next allowed request (distributed/store.ts leasePld), not by the policy',
  },
  {
    name: 'PLD ranking: round-robin serves the PLD served longest ago first',
    expected: ['a', 'c', 'b'],
    answers: { crawl: () => rankingCrawl('round-robin'), estimator: () => replayedRanking('round-robin') },
    missing:
      'the coordinator leases a PLD by its next allowed request (distributed/store.ts leasePld), not by the policy',
  },
  retryCase(
    'retry: a 503 asked again after its Retry-After in seconds',
    'seconds',
    { requests: 2, waited: true },
    3000,
  ),
  // the date names whole seconds, about four ahead of the answer: at least 2 s are left when it is read
  retryCase(
    'retry: a 429 asked again after its Retry-After as an HTTP-date',
    'date',
    { requests: 2, waited: true },
    2000,
  ),
  retryCase(
    'retry: a 503 without Retry-After backs off from the delay',
    'backoff',
    { requests: 2, waited: true },
    2 * RETRY_DELAY,
  ),
  retryCase('retry: a 404 is not asked again', 'unretried', { requests: 1, waited: true }, 0),
];

for (const c of CASES) {
  test(c.name, async () => {
    for (const [caller, answer] of Object.entries(c.answers)) {
      assert.deepEqual(
        await answer(),
        c.expected,
        `${caller}'s answer${c.missing ? `; not asked: ${c.missing}` : ''}`,
      );
    }
  });
}

test("the estimator reads an HTTP-date Retry-After against its answer's Date: the wait it replays is the crawl's, not the fetch's whole time more", async () => {
  await retryCrawl('crawl');
  const asked = documentRequests('crawl-retry-date.');
  assert.equal(asked.length, 2);
  const sample = (await retryHistory('crawl')).urls.get(retryPage('crawl', 'date'));
  assert.ok(
    sample?.retryAfterMs !== null && sample?.retryAfterMs !== undefined,
    'the history has the Retry-After',
  );
  // the date names whole seconds, 3 to 5 s after its Date; read against the fetch's start it was the
  // crawl's wait plus those seconds again
  const gap = asked[1].at - asked[0].at;
  assert.ok(
    sample.retryAfterMs >= 2000 && sample.retryAfterMs <= gap + 2500,
    `replayed ${sample.retryAfterMs} ms for a wait of ${gap} ms`,
  );
});
