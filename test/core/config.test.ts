import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CRAWL_DEFAULTS,
  CRAWL_OPTION_ENTRIES,
  CRAWL_OPTIONS,
  crawlConfig,
  findResolveRule,
  ObservatoryError,
  parseDuration,
  parseInstant,
  parseResolveRule,
  pemCertificates,
  recordedConfig,
  SOFTWARE_VERSION,
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
  ['userAgent', { productToken: 'ExampleBot', userAgent: 'LinkedDataObservatory/1.0' }],
  ['productToken', { productToken: 'Example Bot' }],
  ['productToken', { productToken: 'ExampleBot2' }],
  ['productToken', { productToken: '' }],
  ['maxContextsPerDocument', { maxContextsPerDocument: -1 }],
  ['maxContextsPerCrawl', { maxContextsPerCrawl: 1.5 }],
  ['parseBudgetMs', { parseBudgetMs: 0 }],
  ['policy', { policy: 'fastest-first' }],
  ['roundEnd', { roundEnd: 'never' }],
  ['allowPrivate', { allowPrivate: 'yes' }],
  ['resolve', { resolve: '*=127.0.0.1:80' }],
  ['profile', { profile: 7 }],
];

for (const [name, input] of badConfigs) {
  test(`crawlConfig rejects a bad ${name} with invalid_input naming it`, () => {
    assert.throws(
      () => crawlConfig(input),
      (e: unknown) => e instanceof ObservatoryError && e.code === 'invalid_input' && e.message.includes(name),
    );
  });
}

test('every option of the table has a default its own check takes, and the defaults are the config of no input', () => {
  for (const [key, option] of CRAWL_OPTION_ENTRIES) {
    if (!option.optional) assert.deepEqual(option.check(key, option.default), option.default, key);
  }
  assert.deepEqual({ ...crawlConfig() }, { ...CRAWL_DEFAULTS });
  assert.deepEqual(Object.keys(CRAWL_DEFAULTS), Object.keys(recordedConfig(crawlConfig())));
  assert.equal(crawlConfig().policy, 'longest-first');
});

test('the manifest record holds every option in the table order, the profile only when set', () => {
  const config = crawlConfig({ policy: 'round-robin', profile: 'ldspider' });
  const recorded = recordedConfig(config);
  assert.deepEqual(Object.keys(recorded), Object.keys(CRAWL_OPTIONS));
  assert.equal(recorded.policy, 'round-robin');
  assert.ok(!('profile' in recordedConfig(crawlConfig())));
});

test('crawlConfig gives a product token without a User-Agent the User-Agent that starts with it', () => {
  assert.equal(
    crawlConfig({ productToken: 'Example_Bot-x' }).userAgent,
    `Example_Bot-x/${SOFTWARE_VERSION} (+https://linked-data-observatory.github.io/about/)`,
  );
  assert.equal(
    crawlConfig({ productToken: 'ExampleBot', userAgent: 'x ExampleBot y' }).userAgent,
    'x ExampleBot y',
  );
  assert.equal(crawlConfig().userAgent, CRAWL_DEFAULTS.userAgent);
});

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
    assert.throws(() => parseResolveRule(bad), /--resolve: expected HOST\[:PORT\]=ADDR:PORT/);
  }
  for (const bad of ['*:0=127.0.0.1:1', '*:70000=127.0.0.1:1', '*:x=127.0.0.1:1']) {
    assert.throws(() => parseResolveRule(bad), /--resolve/);
  }
});

test('findResolveRule prefers the exact host over *', () => {
  const rules = [parseResolveRule('*=127.0.0.1:1'), parseResolveRule('a.org=127.0.0.2:2')];
  assert.equal(findResolveRule(rules, 'A.org', 80)?.port, 2);
  assert.equal(findResolveRule(rules, 'b.org', 80)?.port, 1);
  assert.equal(findResolveRule([], 'b.org', 80), undefined);
});

test('a rule naming a URL port routes only that port, before a rule for every port', () => {
  assert.deepEqual(
    { ...parseResolveRule('*:443=127.0.0.1:8443') },
    { host: '*', fromPort: 443, address: '127.0.0.1', port: 8443 },
  );
  const rules = ['*=127.0.0.1:8080', '*:443=127.0.0.1:8443', 'a.org:443=127.0.0.2:9443'].map(
    parseResolveRule,
  );
  assert.equal(findResolveRule(rules, 'b.org', 80)?.port, 8080);
  assert.equal(findResolveRule(rules, 'b.org', 443)?.port, 8443);
  assert.equal(findResolveRule(rules, 'a.org', 443)?.port, 9443);
  assert.equal(findResolveRule(rules, 'a.org', 80)?.port, 8080);
  assert.equal(findResolveRule(rules.slice(1), 'b.org', 80), undefined);
});

test('caCertificates takes PEM certificates only, and pemCertificates splits a bundle', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  assert.deepEqual(pemCertificates(`# bundle\n${pem}${pem}`), [pem, pem]);
  assert.deepEqual(crawlConfig({ caCertificates: [pem] }).caCertificates, [pem]);
  assert.throws(() => crawlConfig({ caCertificates: ['not a certificate'] }), /caCertificates/);
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
  assert.throws(() => parseInstant('yesterday'), /--now: expected an ISO 8601 instant/);
  assert.equal(parseInstant('2026-11-16T00:00:00Z'), Date.UTC(2026, 10, 16));
});

// exact ISO 8601 instants only: Date.parse took the first two as 2026-06-11 and 2026-03-02, and a
// time before 1970 made the politeness timers spin
const instants: [string, number | null][] = [
  ['2026-11-16', Date.UTC(2026, 10, 16)],
  ['2026-11-16T10:30Z', Date.UTC(2026, 10, 16, 10, 30)],
  ['2026-11-16T10:30:15.5+02:00', Date.UTC(2026, 10, 16, 8, 30, 15, 500)],
  ['2024-02-29T23:59:59.999-05:30', Date.UTC(2024, 2, 1, 5, 29, 59, 999)],
  ['2000-01-01T00:00:00Z', Date.UTC(2000, 0, 1)],
  ['2026-11-16T10:30:15.123456+00:00', Date.UTC(2026, 10, 16, 10, 30, 15, 123)],
  ['2026-11-16T10:30:15.987654321Z', Date.UTC(2026, 10, 16, 10, 30, 15, 987)],
  ['2026-11-16T10:30:15.1234567890Z', null],
  ['2026-11-16 junk', null],
  ['2026-02-30T00:00:00Z', null],
  ['2023-02-29', null],
  ['2026-11-16T24:00:00Z', null],
  ['2026-11-16T10:30:00', null],
  ['2026-11-16T10:30:00+24:00', null],
  ['1969-12-31T23:59:59Z', null],
  ['1999-12-31T23:59:59Z', null],
  ['2100-01-01', null],
  ['+002026-11-16', null],
];
for (const [text, ms] of instants) {
  test(`parseInstant(${text}) is ${ms === null ? 'refused' : new Date(ms).toISOString()}`, () => {
    if (ms !== null) return assert.equal(parseInstant(text), ms);
    assert.throws(
      () => parseInstant(text),
      (e: Error & { code?: string }) =>
        e.code === 'invalid_input' && e.message.endsWith(`got ${JSON.stringify(text)}`),
    );
  });
}
