import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CRAWL_DEFAULTS, CRAWL_OPTIONS, SOFTWARE_VERSION } from '../../pipeline/core/index.ts';
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

test('the table lists every crawl option once, in the table order, the ones the manifest lacks marked as defaults', () => {
  const { maxAttempts: _, ...noAttempts } = RAN_WITH;
  const { settings } = crawlerFacts({ name: '2026-01-05', softwareVersion: '0.0.9', config: noAttempts });
  assert.deepEqual(
    settings.map((s) => s.key),
    Object.keys(CRAWL_OPTIONS),
  );
  const row = (key: string) => settings.find((s) => s.key === key)!;
  assert.deepEqual(
    [row('delayMs').shown, row('delayMs').isDefault, row('delayMs').flag],
    ['5 s', false, '--delay'],
  );
  assert.deepEqual(
    [row('maxAttempts').shown, row('maxAttempts').isDefault, row('maxAttempts').flag],
    ['2', true, null],
  );
  // no --profile: the manifest records none, which is what the crawl ran with, not a default standing in
  assert.deepEqual([row('profile').shown, row('profile').isDefault], ['none', false]);
  // a manifest from before `policy` was a config field recorded it beside the config, under the same key
  assert.equal(row('policy').isDefault, false);
  assert.equal(
    crawlerFacts({ name: 'x', softwareVersion: '0', config: { ...RAN_WITH, maxBytes: -1 } }).settings.find(
      (s) => s.key === 'maxBytes',
    )?.isDefault,
    true,
    'a value no crawl runs with is not shown as what the crawl ran with',
  );
  assert.ok(crawlerFacts(undefined).settings.every((s) => s.isDefault));
});
