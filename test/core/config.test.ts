import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CRAWL_DEFAULTS,
  crawlConfig,
  findResolveRule,
  ObservatoryError,
  parseDuration,
  parseInstant,
  parseResolveRule,
} from '../../pipeline/core/index.ts';

test('crawlConfig fills the papers defaults and freezes', () => {
  const c = crawlConfig({ delayMs: 500 });
  assert.equal(c.concurrency, 64);
  assert.equal(c.delayMs, 500);
  assert.equal(c.timeoutMs, 120_000);
  assert.ok(Object.isFrozen(c));
  assert.equal(CRAWL_DEFAULTS.delayMs, 2000);
});

const badConfigs: Array<[string, object]> = [
  ['concurrency', { concurrency: 0 }],
  ['perPld', { perPld: 1.5 }],
  ['delayMs', { delayMs: -1 }],
  ['timeoutMs', { timeoutMs: 0 }],
  ['userAgent', { userAgent: 'curl/8' }],
  ['maxContextsPerDocument', { maxContextsPerDocument: -1 }],
  ['maxContextsPerCrawl', { maxContextsPerCrawl: 1.5 }],
  ['parseBudgetMs', { parseBudgetMs: 0 }],
];

for (const [name, input] of badConfigs) {
  test(`crawlConfig rejects a bad ${name} with invalid_input naming it`, () => {
    assert.throws(
      () => crawlConfig(input),
      (e: unknown) => e instanceof ObservatoryError && e.code === 'invalid_input' && e.message.includes(name),
    );
  });
}

test('parseResolveRule reads curl-style rules, IPv6 included', () => {
  assert.deepEqual(
    { ...parseResolveRule('*=127.0.0.1:8080') },
    { host: '*', address: '127.0.0.1', port: 8080 },
  );
  assert.deepEqual(
    { ...parseResolveRule('DBpedia.org=[::1]:81') },
    { host: 'dbpedia.org', address: '::1', port: 81 },
  );
  for (const bad of ['127.0.0.1:8080', '*=127.0.0.1', '*=127.0.0.1:99999', '']) {
    assert.throws(() => parseResolveRule(bad), /--resolve: expected HOST=ADDR:PORT/);
  }
});

test('findResolveRule prefers the exact host over *', () => {
  const rules = [parseResolveRule('*=127.0.0.1:1'), parseResolveRule('a.org=127.0.0.2:2')];
  assert.equal(findResolveRule(rules, 'A.org')?.port, 2);
  assert.equal(findResolveRule(rules, 'b.org')?.port, 1);
  assert.equal(findResolveRule([], 'b.org'), undefined);
});

const durations: Array<[string, number]> = [
  ['2', 2000],
  ['0.5s', 500],
  ['250ms', 250],
  ['10.5h', 37_800_000],
  ['7d', 604_800_000],
  ['6mo', 180 * 86_400_000],
  ['3y', 3 * 365 * 86_400_000],
];
for (const [text, ms] of durations) {
  test(`parseDuration(${text})`, () => assert.equal(parseDuration(text), ms));
}

test('parseDuration and parseInstant say what they expected', () => {
  assert.throws(() => parseDuration('soon', '--slot'), /--slot: expected a duration/);
  assert.throws(() => parseInstant('yesterday'), /--now: expected an ISO 8601 date-time/);
  assert.equal(parseInstant('2026-11-16T00:00:00Z'), Date.UTC(2026, 10, 16));
});
