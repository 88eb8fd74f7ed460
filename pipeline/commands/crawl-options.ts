import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { Clock, CrawlConfig, Logger, RoundEndRule } from '../core/index.ts';
import {
  CRAWL_DEFAULTS,
  clockStartingAt,
  crawlConfig,
  createLogger,
  INSTANT_FORMS,
  invalidInput,
  parseDuration,
  parseInstant,
  parseResolveRule,
  pemCertificates,
  productToken,
  ROUND_END_RULES,
  systemClock,
} from '../core/index.ts';
import type { PolicyName } from '../crawl/index.ts';
import { POLICY_NAMES } from '../crawl/index.ts';

/** The options every crawling command shares, as commander hands them over. */
export interface CrawlCliOptions {
  resolve: string[];
  caFile?: string;
  allowPrivate: boolean;
  delay: string;
  perPld: string;
  concurrency: string;
  timeout: string;
  crawlDelayCap: string;
  maxBytes: string;
  maxRedirects: string;
  maxLinks: string;
  maxContexts: string;
  maxCrawlContexts: string;
  parseBudget: string;
  parseMemory: string;
  /** Absent only where the options were not built by commander (the default then). */
  memoryBudget?: string;
  /** False with --no-warc (commander's default for it is true). */
  warc?: boolean;
  /** False with --no-conditional. */
  conditional?: boolean;
  userAgent?: string;
  /** Checked by its parser; absent only where the options were not built by commander. */
  productToken?: string;
  policy: string;
  roundEnd: string;
  /** With --profile (only the commands that have it). */
  profile?: CrawlProfileName;
  now?: string;
  log?: string;
  logLevel: string;
}

/**
 * Named bundles of crawl options, as the command line would give them (commander's option names).
 * A profile sets each of its options that the command has and the command line leaves at its
 * default; an option given explicitly wins. The profile's name goes into the config, so manifests
 * record it beside the values it set.
 */
export const CRAWL_PROFILES = {
  /**
   * The crawl as the DyLDO paper configured LDSpider (docs/crawling.md, "The ldspider profile"):
   * per-PLD queues polled round-robin, rounds = hops (expand), every document downloaded in full,
   * and the paper's politeness and limits pinned, whatever our defaults become.
   */
  ldspider: {
    policy: 'round-robin',
    roundEnd: 'ldspider',
    rounds: 'hops',
    conditional: false,
    concurrency: '64',
    delay: '2',
    perPld: '1',
    timeout: '120s',
  },
} as const satisfies Record<string, Readonly<Record<string, string | boolean>>>;

export type CrawlProfileName = keyof typeof CRAWL_PROFILES;

/** Adds `--profile` (and `--conditional`, to take back a profile's `--no-conditional`) to a crawling command. */
export function addProfileOption(command: Command): Command {
  return command
    .addOption(
      new Option('--profile <name>', 'start from a named bundle of options (explicit options win)').choices(
        Object.keys(CRAWL_PROFILES),
      ),
    )
    .option('--conditional', 're-visits ask with validators (the default; overrides a --profile)');
}

/**
 * The options with `o.profile`'s bundle applied: each option of the bundle that `command` has and
 * the command line did not give takes the profile's value.
 */
export function withProfile<T extends CrawlCliOptions>(o: T, command: Command): T {
  if (o.profile === undefined) return o;
  const applied: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(CRAWL_PROFILES[o.profile])) {
    const known = command.options.some((option) => option.attributeName() === key);
    // no source: the option has no default (`--conditional` beside `--no-conditional`) and was not given
    const source = command.getOptionValueSource(key);
    if (known && (source === undefined || source === 'default')) applied[key] = value;
  }
  return { ...o, ...applied };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Adds the crawler's options (politeness, limits, routing, clock, logs) to a command. */
export function addCrawlOptions(command: Command): Command {
  return command
    .option(
      '--resolve <HOST[:PORT]=ADDR:PORT>',
      "route a host to an address, like curl's (* for every host; HOST:443 only for https URLs)",
      collect,
      [],
    )
    .option(
      '--ca-file <file>',
      "PEM CA certificates to trust besides the system's (e.g. the simulated Web's)",
    )
    .option('--allow-private', 'allow loopback and private addresses (the simulated Web, tests)', false)
    .option(
      '--delay <seconds>',
      'minimum gap between request starts to one pay-level domain',
      String(CRAWL_DEFAULTS.delayMs / 1000),
    )
    .option('--per-pld <n>', 'requests in flight at once per pay-level domain', String(CRAWL_DEFAULTS.perPld))
    .option('--concurrency <n>', 'fetches in flight at once', String(CRAWL_DEFAULTS.concurrency))
    .option('--timeout <duration>', 'limit for a whole fetch', `${CRAWL_DEFAULTS.timeoutMs / 1000}s`)
    .option(
      '--crawl-delay-cap <duration>',
      'longest robots.txt Crawl-delay or Retry-After honoured',
      `${CRAWL_DEFAULTS.crawlDelayCapMs / 1000}s`,
    )
    .option('--max-bytes <n>', 'limit on decompressed response bytes', String(CRAWL_DEFAULTS.maxBytes))
    .option('--max-redirects <n>', 'redirect hops followed at most', String(CRAWL_DEFAULTS.maxRedirects))
    .option(
      '--max-links <n>',
      'links of one document the frontier takes at most',
      String(CRAWL_DEFAULTS.maxLinksPerDocument),
    )
    .option(
      '--max-contexts <n>',
      'remote JSON-LD contexts one document may name',
      String(CRAWL_DEFAULTS.maxContextsPerDocument),
    )
    .option(
      '--max-crawl-contexts <n>',
      'remote JSON-LD contexts one crawl fetches at most',
      String(CRAWL_DEFAULTS.maxContextsPerCrawl),
    )
    .option(
      '--parse-budget <duration>',
      'CPU time parsing and hashing one document may take',
      `${CRAWL_DEFAULTS.parseBudgetMs / 1000}s`,
    )
    .option(
      '--parse-memory <MiB>',
      'heap one parse worker may use (one worker per core); a document needing more is too_complex',
      String(CRAWL_DEFAULTS.parseMemoryMb),
    )
    .option(
      '--memory-budget <MiB>',
      'memory the documents in flight may cost together (bodies, parsing, statements); past it fetches wait',
      String(CRAWL_DEFAULTS.memoryBudgetMb),
    )
    .option('--no-warc', 'do not keep the WARC archive of the crawl (saves its disk space: docs/archive.md)')
    .option(
      '--no-conditional',
      're-visits download every document in full (no If-None-Match / If-Modified-Since, no 304)',
    )
    .option(
      '--product-token <token>',
      'the name robots.txt groups address the crawler by (RFC 9309: letters, _ and -); starts the User-Agent',
      (value: string) => productToken('--product-token', value),
      CRAWL_DEFAULTS.productToken,
    )
    .option('--user-agent <text>', 'User-Agent header (must contain the product token)')
    .addOption(
      new Option('--policy <name>', 'which ready PLD a free slot serves')
        .choices(POLICY_NAMES)
        .default('longest-first'),
    )
    .addOption(
      new Option(
        '--round-end <rule>',
        'when a round ends early (observatory: also only if the next round brings a PLD not active now)',
      )
        .choices(ROUND_END_RULES)
        .default(CRAWL_DEFAULTS.roundEnd),
    )
    .option(
      '--now <iso>',
      `logical start time of this run (a virtual clock), from 2000 to 2099: ${INSTANT_FORMS}`,
    )
    .option('--log <file>', 'write structured JSON logs to this file (default: stderr)')
    .option('--log-level <level>', 'log level: fatal, error, warn, info, debug, silent', 'warn');
}

function integer(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n)) throw invalidInput(name, 'a whole number', text);
  return n;
}

/** The certificates of a `--ca-file`, each checked to be a readable X.509 certificate. */
function readCaFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw invalidInput(
      '--ca-file',
      'a readable file of PEM certificates',
      `${file}: ${(error as Error).message}`,
    );
  }
  const certificates = pemCertificates(text);
  if (certificates.length === 0) throw invalidInput('--ca-file', 'at least one PEM certificate', file);
  for (const pem of certificates) {
    try {
      new X509Certificate(pem);
    } catch {
      throw invalidInput('--ca-file', 'PEM certificates that parse as X.509', file);
    }
  }
  return certificates;
}

/** Everything a crawling command needs, validated once. */
export interface CrawlSetup {
  readonly config: CrawlConfig;
  readonly policy: PolicyName;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Validates the shared crawl options into a frozen config, a clock and a logger. */
export function crawlSetup(o: CrawlCliOptions): CrawlSetup {
  const delaySeconds = Number(o.delay);
  if (!Number.isFinite(delaySeconds) || delaySeconds < 0) {
    throw invalidInput('--delay', 'a number of seconds of at least 0 (fractions allowed)', o.delay);
  }
  const config = crawlConfig({
    resolve: o.resolve.map(parseResolveRule),
    ...(o.caFile ? { caCertificates: readCaFile(o.caFile) } : {}),
    allowPrivate: o.allowPrivate,
    delayMs: Math.round(delaySeconds * 1000),
    perPld: integer('--per-pld', o.perPld),
    concurrency: integer('--concurrency', o.concurrency),
    timeoutMs: parseDuration(o.timeout, '--timeout'),
    crawlDelayCapMs: parseDuration(o.crawlDelayCap, '--crawl-delay-cap'),
    maxBytes: integer('--max-bytes', o.maxBytes),
    maxRedirects: integer('--max-redirects', o.maxRedirects),
    maxLinksPerDocument: integer('--max-links', o.maxLinks),
    maxContextsPerDocument: integer('--max-contexts', o.maxContexts),
    maxContextsPerCrawl: integer('--max-crawl-contexts', o.maxCrawlContexts),
    parseBudgetMs: parseDuration(o.parseBudget, '--parse-budget'),
    parseMemoryMb: integer('--parse-memory', o.parseMemory),
    ...(o.memoryBudget !== undefined ? { memoryBudgetMb: integer('--memory-budget', o.memoryBudget) } : {}),
    roundEnd: o.roundEnd as RoundEndRule,
    ...(o.warc === false ? { warc: false } : {}),
    ...(o.conditional === false ? { conditional: false } : {}),
    ...(o.userAgent ? { userAgent: o.userAgent } : {}),
    ...(o.productToken !== undefined ? { productToken: o.productToken } : {}),
    ...(o.profile ? { profile: o.profile } : {}),
  });
  // an empty --now (an unset variable in a crontab) is bad input, not the wall clock
  const clock = o.now !== undefined ? clockStartingAt(parseInstant(o.now)) : systemClock;
  const logger = createLogger({ level: o.logLevel, file: o.log });
  return { config, policy: o.policy as PolicyName, clock, logger };
}

/** An AbortSignal that fires on the first SIGINT/SIGTERM, so a crawl stops cleanly and can resume. */
export function stopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = (sig: string) => {
    process.stderr.write(
      `\nobservatory: ${sig}: finishing fetches in flight (again to quit now); run the same command to resume\n`,
    );
    controller.abort();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return controller.signal;
}
