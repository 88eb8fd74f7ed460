/**
 * The crawling commands' flags come from the crawl options' table (core/crawl-options.ts): every
 * option with a flag is on the command line with its default in `--help`, and a value given there
 * reaches the config; a bad value is `invalid_input` naming the flag.
 */
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Command } from 'commander';
import { addCrawlOptions, crawlSetup } from '../../pipeline/commands/crawl-options.ts';
import {
  CRAWL_DEFAULTS,
  CRAWL_OPTION_ENTRIES,
  type CrawlConfig,
  flagName,
  ObservatoryError,
} from '../../pipeline/core/index.ts';
import { createCertificateAuthority } from '../../pipeline/simweb/certificates.ts';

/** A value other than the default for each flag, as an operator types it (a switch: no value). */
const GIVEN: Readonly<Record<string, readonly string[]>> = {
  '--user-agent': ['ExampleBot/1 (+mailto:ops@example.org)'],
  '--product-token': ['ExampleBot'],
  '--concurrency': ['7'],
  '--delay': ['0.25'],
  '--per-pld': ['2'],
  '--timeout': ['30s'],
  '--max-bytes': ['1000'],
  '--max-redirects': ['3'],
  '--crawl-delay-cap': ['5s'],
  '--max-links': ['50'],
  '--max-contexts': ['2'],
  '--max-crawl-contexts': ['20'],
  '--parse-budget': ['5s'],
  '--parse-memory': ['128'],
  '--memory-budget': ['256'],
  '--resolve': ['*=127.0.0.1:8080'],
  '--allow-private': [],
  '--no-warc': [],
  '--no-conditional': [],
  '--policy': ['round-robin'],
  '--round-end': ['ldspider'],
};

function parse(args: readonly string[]): CrawlConfig {
  const command = addCrawlOptions(new Command('crawl')).exitOverride();
  command.parse(['--log-level', 'silent', ...args], { from: 'user' });
  return crawlSetup(command.opts()).config;
}

test('every option with a flag is on the command line and reaches the config; none given: the defaults', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'crawl-options-'));
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, (await createCertificateAuthority()).certPem);
  const given = { ...GIVEN, '--ca-file': [caFile] };
  const flagged = CRAWL_OPTION_ENTRIES.filter(([, option]) => option.flag);
  assert.deepEqual(
    flagged.map(([, option]) => flagName(option)).sort(),
    Object.keys(given).sort(),
    'a sample value for each flag of the table',
  );
  assert.deepEqual({ ...parse([]) }, { ...CRAWL_DEFAULTS });
  const config = parse(Object.entries(given).flatMap(([flag, values]) => [flag, ...values]));
  for (const [key] of flagged) {
    assert.notDeepEqual(config[key], CRAWL_DEFAULTS[key], `${key} is set by its flag`);
  }
  assert.equal(config.delayMs, 250);
  assert.equal(config.timeoutMs, 30_000);
  assert.equal(config.policy, 'round-robin');
  assert.deepEqual(config.resolve, [{ host: '*', address: '127.0.0.1', port: 8080 }]);
});

test('--help shows each flag with its default', () => {
  const help = addCrawlOptions(new Command('crawl')).helpInformation().replace(/\s+/g, ' ');
  for (const [, option] of CRAWL_OPTION_ENTRIES) {
    const flag = option.flag;
    if (!flag) continue;
    assert.ok(help.includes(flag.flags), flag.flags);
    if (flag.shown) assert.ok(help.includes(`default: "${flag.shown(option.default)}")`), flag.flags);
  }
  assert.match(help, /--delay <seconds> +minimum gap .*\(default: "2"\)/);
  assert.match(
    help,
    /--policy <name> .*\(choices: "longest-first", "round-robin", default: "longest-first"\)/,
  );
});

test('a bad value is invalid_input naming the flag, or the config key for a range the flag cannot see', () => {
  const cases: [string[], string][] = [
    [['--delay', '-1'], '--delay'],
    [['--concurrency', 'many'], '--concurrency'],
    [['--concurrency', '0'], 'concurrency'],
    [['--timeout', 'soon'], '--timeout'],
    [['--product-token', 'Example Bot'], '--product-token'],
    [['--resolve', 'nowhere'], '--resolve'],
    [['--ca-file', '/nonexistent/ca.pem'], '--ca-file'],
    [['--user-agent', 'curl/8'], 'userAgent'],
  ];
  for (const [args, named] of cases) {
    assert.throws(
      () => parse(args),
      (e: unknown) =>
        e instanceof ObservatoryError && e.code === 'invalid_input' && e.message.startsWith(`${named}:`),
      args.join(' '),
    );
  }
});
