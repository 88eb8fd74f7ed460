/**
 * A re-visit gives its PLD back when its last answer is over (issue #35): after a 304 that is
 * trusted, before the fetcher's own work on it; after the unconditional check of a 304 that is
 * checked, not after the 304. Over real HTTP on the simulated Web, through the crawl's own fetcher
 * (with its archive), watched from outside.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type PreviousObservation, systemClock, urlPld } from '../../pipeline/core/index.ts';
import {
  type CrawlFetcher,
  type CrawlTools,
  createCrawlTools,
  RevisitPolicy,
} from '../../pipeline/crawl/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { simConfig } from './sim-crawl.ts';

const T0 = Date.UTC(2026, 2, 1);
let sim: SimWeb;
let tools: CrawlTools;

before(async () => {
  sim = await startSimWeb({ seed: 5, docs: 600, plds: 40, latencyScale: 0, faults: 0, now: T0 });
  const dir = mkdtempSync(join(tmpdir(), 'revisit-answered-'));
  tools = createCrawlTools(simConfig(sim, { delayMs: 1 }), systemClock, { dir, prefix: 'week' });
});

after(async () => {
  await tools.close();
  sim.close();
});

/** Two documents of one PLD that answers 304 correctly and never change after T0. */
function twoStableDocuments(): [string, string] {
  const correct = new Set(
    sim
      .pldHabits()
      .filter((h) => h.validators === 'correct')
      .map((h) => h.pld),
  );
  const byPld = new Map<string, string[]>();
  for (const r of sim.truth(T0)) {
    if (!correct.has(r.pld) || r.kind !== 'document' || !r.rdf || r.diedAt !== null) continue;
    if (r.changes.some((c) => Date.parse(c.at) > T0) || r.finalUrl !== r.uri) continue;
    byPld.set(r.pld, [...(byPld.get(r.pld) ?? []), r.uri]);
  }
  const urls = [...byPld.values()].find((u) => u.length >= 2);
  assert.ok(urls, 'a correct PLD with two stable documents');
  return [urls[0], urls[1]];
}

/** What an earlier crawl saw at `url`: its first download now, its body's hash unless `sha256` is given. */
async function observe(url: string, sha256?: string): Promise<PreviousObservation> {
  const first = await tools.fetcher.fetchDocument(url);
  assert.equal(first.status, 200);
  return {
    snapshot: 'earlier',
    finalUrl: first.finalUrl,
    etag: first.headers.etag ?? null,
    lastModified: first.headers['last-modified'] ?? 'Thu, 01 Jan 2026 00:00:00 GMT',
    contentSha256: sha256 ?? createHash('sha256').update(first.body!).digest('hex'),
    graphHash: null,
    format: null,
    contentType: first.headers['content-type'] ?? null,
    bytes: first.body!.length,
    warc: first.warc ?? null,
  };
}

test('a trusted 304 gives its PLD back at its answer; a checked one after its check, with its verdict', async () => {
  const urls = twoStableDocuments();
  // a PLD that answers 304 to every conditional request, asked about a version it no longer serves
  const stale = sim
    .truth(T0)
    .find((r) => r.pld === sim.summary().stale304Pld && r.kind === 'document' && r.rdf && r.diedAt === null);
  assert.ok(stale, 'a document of the stale-304 PLD');
  const observations = new Map<string, PreviousObservation>();
  for (const url of urls) observations.set(url, await observe(url));
  const staleUrl = stale.finalUrl!;
  observations.set(staleUrl, await observe(staleUrl, '0'.repeat(64)));
  // the crawl's fetcher, watched: each answer as it is over, each fetch as it is handed back
  let log: string[] = [];
  const watched: CrawlFetcher = {
    ...tools.fetcher,
    fetchDocument: async (url, signal, claim, validators, lease, answered) => {
      const fetched = await tools.fetcher.fetchDocument(url, signal, claim, validators, lease, (f) => {
        log.push(`answer ${f.status}`);
        answered?.(f);
      });
      log.push(`fetch ${fetched.status} back`);
      return fetched;
    },
  };
  const policy = new RevisitPolicy(watched, {
    previous: (url) => observations.get(url),
    statements: async () => [],
  });
  // the PLD's next re-visit may start at `given back`: what it would know of the PLD's 304s then
  const revisit = async (url: string, validation: string) => {
    log = [];
    const given = () => log.push(`given back (${policy.trustOf(urlPld(url))})`);
    const outcome = await policy.fetch(url, () => true, undefined, given);
    assert.equal(outcome.validation, validation);
    return log;
  };
  // the first 304 of a PLD is checked: the PLD is given back when the check's answer is over
  assert.deepEqual(await revisit(urls[0], 'not_modified'), [
    'answer 304',
    'fetch 304 back',
    'answer 200',
    'given back (checked)',
    'fetch 200 back',
  ]);
  // the next is trusted (unless it is one of the sampled ones, checked too): given back at the
  // 304's answer, before the fetcher's own work on it
  const second = await revisit(urls[1], 'not_modified');
  assert.deepEqual(
    second,
    second.includes('answer 200')
      ? ['answer 304', 'fetch 304 back', 'answer 200', 'given back (checked)', 'fetch 200 back']
      : ['answer 304', 'given back (checked)', 'fetch 304 back'],
  );
  // a 304 the check shows stale: the PLD is distrusted before it is given back
  assert.deepEqual(await revisit(staleUrl, 'stale_304'), [
    'answer 304',
    'fetch 304 back',
    'answer 200',
    'given back (distrusted)',
    'fetch 200 back',
  ]);
});
