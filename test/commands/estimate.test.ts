import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  clockStartingAt,
  crawlConfig,
  normaliseIri,
  parseResolveRule,
  payLevelDomain,
  silentLogger,
} from '../../pipeline/core/index.ts';
import { runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { readHistoryStats } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { runCli } from './cli-process.ts';

const W0 = Date.UTC(2026, 0, 5);
let sim: SimWeb;
let root: string;
let kernel: string[];

before(async () => {
  sim = await startSimWeb({ seed: 3, docs: 300, plds: 25, latencyScale: 0, faults: 0, now: W0 });
  root = mkdtempSync(join(tmpdir(), 'estimate-'));
  // the kernel as the observatory reads it: normalised (fragments stripped), each URI once
  kernel = [...new Set(sim.coreSeeds.map((u) => normaliseIri(u)!))];
  const outcome = await runWeeklySnapshot({
    root,
    kernel,
    adaptiveRounds: 1,
    config: crawlConfig({ resolve: [parseResolveRule(sim.resolveRule)], allowPrivate: true, delayMs: 5 }),
    logger: silentLogger,
    clock: clockStartingAt(W0),
  });
  assert.equal(outcome.status, 'published');
});

after(() => sim.close());

test('the history of a published crawl gives every crawled PLD a profile and every document a sample', async () => {
  const stats = await readHistoryStats(root);
  assert.equal(stats.snapshots.length, 1);
  for (const url of kernel) {
    const pld = payLevelDomain(new URL(url).hostname);
    assert.ok(stats.plds.has(pld), `${pld} has a profile`);
    assert.ok(stats.urls.has(url), `${url} has a sample`);
  }
  for (const profile of stats.plds.values()) assert.ok(profile.samples.length > 0);
});

test('observatory estimate predicts a makespan with its spread and the baseline beside it', async () => {
  const urls = join(root, 'urls.txt');
  writeFileSync(urls, `${kernel.join('\n')}\n`);
  const r = await runCli(['estimate', '--urls', urls, '--history', root, '--delay', '0.5', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const estimate = JSON.parse(r.stdout) as {
    urls: number;
    p10Ms: number;
    p50Ms: number;
    p90Ms: number;
    plds: number;
  };
  assert.equal(estimate.urls, new Set(kernel).size);
  assert.ok(estimate.p10Ms <= estimate.p50Ms && estimate.p50Ms <= estimate.p90Ms);
  // one PLD's documents cannot go faster than one every 0.5 s
  const perPld = new Map<string, number>();
  for (const u of kernel)
    perPld.set(
      payLevelDomain(new URL(u).hostname),
      (perPld.get(payLevelDomain(new URL(u).hostname)) ?? 0) + 1,
    );
  const busiest = Math.max(...perPld.values());
  assert.ok(
    estimate.p50Ms >= (busiest - 1) * 500,
    `P50 ${estimate.p50Ms} ms for ${busiest} documents on one PLD`,
  );
  const text = await runCli(['estimate', '--urls', urls, '--history', root, '--delay', '0.5']);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /baseline/i);
});

test('observatory plan says what fits in a slot, and bad input is one line with exit 2', async () => {
  const r = await runCli([
    'plan',
    '--slot',
    '10.5h',
    '--root',
    root,
    '--at',
    new Date(W0 + 7 * 86_400_000).toISOString(),
  ]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /slot of 10\.50? ?h/);
  assert.match(r.stdout, new RegExp(`fit ${new Set(kernel).size}, postponed 0`));
  const bad = await runCli(['plan', '--slot', 'soon', '--root', root]);
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  const missing = await runCli(['estimate', '--urls', join(root, 'nope.txt'), '--history', root]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /nope\.txt/);
});
