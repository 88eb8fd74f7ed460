import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CRAWL_DEFAULTS, SOFTWARE_VERSION } from '../../pipeline/core/index.ts';
import { crawlerFacts } from '../../pipeline/stats/crawler-facts.ts';

const RAN_WITH = {
  ...CRAWL_DEFAULTS,
  productToken: 'ExampleBot',
  userAgent: 'ExampleBot/2 (+x)',
  delayMs: 5000,
};

test('the About page shows what the newest weekly snapshot ran with', () => {
  const facts = crawlerFacts({ name: '2026-01-05', softwareVersion: '0.0.9', config: RAN_WITH });
  assert.deepEqual(
    [facts.snapshot, facts.softwareVersion, facts.productToken, facts.userAgent, facts.delayMs, facts.perPld],
    ['2026-01-05', '0.0.9', 'ExampleBot', 'ExampleBot/2 (+x)', 5000, CRAWL_DEFAULTS.perPld],
  );
});

test('without a snapshot, the defaults', () => {
  const facts = crawlerFacts(undefined);
  assert.deepEqual(
    [facts.snapshot, facts.softwareVersion, facts.productToken, facts.userAgent, facts.delayMs],
    [null, SOFTWARE_VERSION, CRAWL_DEFAULTS.productToken, CRAWL_DEFAULTS.userAgent, CRAWL_DEFAULTS.delayMs],
  );
});

test('a setting the manifest does not hold is the default; token and User-Agent only as a pair', () => {
  const { productToken: _, ...noToken } = RAN_WITH;
  const facts = crawlerFacts({ name: '2026-01-05', softwareVersion: '0.0.9', config: noToken });
  assert.deepEqual(
    [facts.productToken, facts.userAgent, facts.delayMs],
    [CRAWL_DEFAULTS.productToken, CRAWL_DEFAULTS.userAgent, 5000],
  );
});
