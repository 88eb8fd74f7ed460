import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  DEFAULT_USER_AGENT,
  PRODUCT_TOKEN,
  parseResolveRule,
  pemCertificates,
  productToken,
  type ResolveRule,
  userAgentFor,
} from './config.ts';
import { parseDuration } from './duration.ts';
import { invalidInput } from './errors.ts';

/**
 * How the command line gives an option: commander's flags (`--delay <seconds>`, `--no-warc`), the
 * text `--help` shows as its default, and the reading of what commander hands over (a string, the
 * strings of a repeated option, or a switch's boolean) into the config's value.
 */
export interface CrawlFlag<T> {
  readonly flags: string;
  /** What the flag does, where that is not the option's `what`: a switch that turns it off. */
  readonly help?: string;
  /** The default as the command line writes it; absent: the option has none to show. */
  shown?(value: T): string;
  /** The value given, `invalid_input` naming the flag; absent: commander's value is the config's. */
  parse?(given: never, flag: string): T;
  readonly choices?: readonly string[];
  /** Given any number of times, each value kept. */
  readonly repeated?: true;
}

/**
 * One crawl option: what it is (the command line's help, the docs' and the About page's line), its
 * default, the check that a value is one a crawl runs with (`invalid_input` naming the key), and
 * how the command line gives it and the About page shows it.
 */
export interface CrawlOption<T> {
  readonly what: string;
  readonly default: T;
  check(key: string, value: unknown): T;
  show(value: T): string;
  readonly flag?: CrawlFlag<T>;
  /** Absent from a config (and its manifest record) unless given. */
  readonly optional?: true;
}

function wholeNumber(least: number) {
  return (key: string, value: unknown): number => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
      throw invalidInput(key, `a whole number of at least ${least}`, value);
    }
    return value;
  };
}

function nonNegative(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidInput(key, 'a number of at least 0', value);
  }
  return value;
}

function positiveMs(key: string, value: unknown): number {
  if (nonNegative(key, value) === 0) throw invalidInput(key, 'a positive number of milliseconds', value);
  return value as number;
}

function yesNo(key: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalidInput(key, 'true or false', value);
  return value;
}

function oneOf<T extends string>(names: readonly T[]) {
  return (key: string, value: unknown): T => {
    if (!names.includes(value as T)) throw invalidInput(key, names.join(' or '), value);
    return value as T;
  };
}

function integer(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n)) throw invalidInput(flag, 'a whole number', text);
  return n;
}

const duration = (text: string, flag: string) => parseDuration(text, flag);
const seconds = (ms: number) => `${ms / 1000}s`;
const count = (n: number) => n.toLocaleString('en');

function bytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${count(n)} bytes`;
}

function millis(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  }
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

const wholeNumberOption = (
  what: string,
  least: number,
  value: number,
  flags?: string,
): CrawlOption<number> => ({
  what,
  default: value,
  check: wholeNumber(least),
  show: count,
  ...(flags ? { flag: { flags, shown: String, parse: integer } } : {}),
});

const durationOption = (
  what: string,
  value: number,
  check: (key: string, value: unknown) => number,
  flags?: string,
): CrawlOption<number> => ({
  what,
  default: value,
  check,
  show: millis,
  ...(flags ? { flag: { flags, shown: seconds, parse: duration } } : {}),
});

/** The certificates of a `--ca-file`, each checked to be a readable X.509 certificate. */
function readCaFile(file: string, flag: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw invalidInput(flag, 'a readable file of PEM certificates', `${file}: ${(error as Error).message}`);
  }
  const certificates = pemCertificates(text);
  if (certificates.length === 0) throw invalidInput(flag, 'at least one PEM certificate', file);
  for (const pem of certificates) {
    try {
      new X509Certificate(pem);
    } catch {
      throw invalidInput(flag, 'PEM certificates that parse as X.509', file);
    }
  }
  return certificates;
}

function isPemCertificate(text: unknown): boolean {
  return (
    typeof text === 'string' && /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/.test(text)
  );
}

/**
 * Which ready PLD a free fetch slot serves next (pipeline/crawl/policy.ts): the PLD with the most
 * remaining work first, or the classic round-robin, kept for comparison.
 */
export type PolicyName = 'longest-first' | 'round-robin';

export const POLICY_NAMES: readonly PolicyName[] = ['longest-first', 'round-robin'];

export type RoundEndRule = 'observatory' | 'ldspider';

export const ROUND_END_RULES: readonly RoundEndRule[] = ['observatory', 'ldspider'];

/**
 * Every knob of fetching and crawling, declared once: the config's type, defaults and checks, the
 * crawling commands' flags, the manifest's record and the About page's table all come from here
 * (docs/crawling.md lists them, and a test holds it to this table). The order is the manifest's
 * (`policy` after `roundEnd`, where manifests recorded it before it was a config field).
 */
export const CRAWL_OPTIONS = {
  /** The User-Agent header of every request; it must contain the product token (default: userAgentFor it). */
  userAgent: {
    what: 'User-Agent header (must contain the product token)',
    default: DEFAULT_USER_AGENT,
    check: (key: string, value: unknown): string => {
      if (typeof value !== 'string')
        throw invalidInput(key, 'a User-Agent containing the product token', value);
      return value;
    },
    show: String,
    flag: { flags: '--user-agent <text>' },
  },
  /** The name robots.txt groups address the crawler by (RFC 9309 2.2.1): letters, `_` and `-`. */
  productToken: {
    what: 'the name robots.txt groups address the crawler by (RFC 9309: letters, _ and -); starts the User-Agent',
    default: PRODUCT_TOKEN,
    check: productToken,
    show: String,
    flag: {
      flags: '--product-token <token>',
      shown: String,
      parse: (text: string, flag: string) => productToken(flag, text),
    },
  },
  /** Fetches in flight at once across all PLDs. */
  concurrency: wholeNumberOption('fetches in flight at once', 1, 64, '--concurrency <n>'),
  /** Minimum gap between the starts of two requests to one PLD, in milliseconds. */
  delayMs: {
    what: 'minimum gap between request starts to one pay-level domain',
    default: 2000,
    check: nonNegative,
    show: millis,
    flag: {
      flags: '--delay <seconds>',
      shown: (ms: number) => String(ms / 1000),
      parse: (text: string, flag: string) => {
        const s = Number(text);
        if (!Number.isFinite(s) || s < 0) {
          throw invalidInput(flag, 'a number of seconds of at least 0 (fractions allowed)', text);
        }
        return Math.round(s * 1000);
      },
    },
  },
  /** Requests in flight at once to one PLD. */
  perPld: wholeNumberOption('requests in flight at once per pay-level domain', 1, 1, '--per-pld <n>'),
  /** Limit for a whole fetch (connect, headers and body), in milliseconds. */
  timeoutMs: durationOption('limit for a whole fetch', 120_000, positiveMs, '--timeout <duration>'),
  /** Limit on decompressed response bytes. */
  maxBytes: {
    ...wholeNumberOption('limit on decompressed response bytes', 1, 32 * 2 ** 20, '--max-bytes <n>'),
    show: bytes,
  },
  /** Redirect hops followed before `redirect_limit`. */
  maxRedirects: wholeNumberOption('redirect hops followed at most', 1, 5, '--max-redirects <n>'),
  /** A robots.txt Crawl-delay (or a Retry-After) above this, in milliseconds, is capped to it. */
  crawlDelayCapMs: durationOption(
    'longest robots.txt Crawl-delay or Retry-After honoured',
    60_000,
    nonNegative,
    '--crawl-delay-cap <duration>',
  ),
  /** robots.txt bytes parsed at most (RFC 9309 asks for at least 500 KiB). */
  robotsMaxBytes: { ...wholeNumberOption('robots.txt bytes parsed at most', 1, 500 * 1024), show: bytes },
  /** How long a fetched robots.txt is trusted, in milliseconds (RFC 9309: at most 24 h). */
  robotsTtlMs: durationOption('how long a fetched robots.txt is trusted', 24 * 3_600_000, nonNegative),
  /** How long a robots.txt that answered 5xx/429 or was unreachable blocks its authority before we ask again. */
  robotsUnavailableTtlMs: durationOption(
    'how long an unreachable robots.txt (or one answering 5xx) blocks its site before it is asked again',
    10 * 60_000,
    nonNegative,
  ),
  /** Attempts for a fetch whose error says retry (5xx, 429, reset, timeout), first included. */
  maxAttempts: wholeNumberOption('attempts for a fetch whose error says retry, the first included', 1, 2),
  /**
   * Links of one document the frontier takes at most (in document order): a document with a
   * million links must not grow the frontier by a million URLs.
   */
  maxLinksPerDocument: wholeNumberOption(
    'links of one document the frontier takes at most',
    1,
    10_000,
    '--max-links <n>',
  ),
  /**
   * Distinct remote JSON-LD contexts one document may name (nested ones included): a document
   * naming thousands of contexts on as many hosts must not send the crawler to all of them.
   */
  maxContextsPerDocument: wholeNumberOption(
    'remote JSON-LD contexts one document may name',
    0,
    8,
    '--max-contexts <n>',
  ),
  /** Remote JSON-LD contexts one crawl fetches at most (each fetched once; cached ones are free). */
  maxContextsPerCrawl: wholeNumberOption(
    'remote JSON-LD contexts one crawl fetches at most',
    0,
    1_000,
    '--max-crawl-contexts <n>',
  ),
  /** CPU milliseconds parsing and hashing one document may take (`too_complex` past it). */
  parseBudgetMs: durationOption(
    'CPU time parsing and hashing one document may take',
    60_000,
    positiveMs,
    '--parse-budget <duration>',
  ),
  /**
   * MiB of heap (V8 old generation) one parse worker may use; a document that needs more is
   * `too_complex`. One worker per core, so the crawl's parsing takes at most cores x this.
   * Below 64 a worker cannot even load the parsers.
   */
  parseMemoryMb: wholeNumberOption(
    'heap (MiB) one parse worker may use (one worker per core); a document needing more is too_complex',
    64,
    192,
    '--parse-memory <MiB>',
  ),
  /**
   * MiB that the documents in flight may cost together: bodies being received and held, their
   * parse and their statements until journaled (core/memory-budget.ts, rdf/read-cost.ts). Past it
   * bodies wait, never fail; one document alone may cost more (docs/crawling.md, "Memory budget").
   */
  memoryBudgetMb: wholeNumberOption(
    'memory (MiB) the documents in flight may cost together (bodies, parsing, statements); past it fetches wait',
    1,
    1024,
    '--memory-budget <MiB>',
  ),
  /** Where hosts are routed instead of DNS (`--resolve`, curl's idea). */
  resolve: {
    what: "route a host to an address, like curl's (* for every host; HOST:443 only for https URLs)",
    default: Object.freeze([]) as readonly ResolveRule[],
    check: (key: string, value: unknown): readonly ResolveRule[] => {
      if (!Array.isArray(value)) throw invalidInput(key, 'a list of resolve rules', value);
      return Object.freeze([...value]);
    },
    show: (rules: readonly ResolveRule[]) =>
      rules.length === 0
        ? 'none'
        : rules
            .map((r) => `${r.host}${r.fromPort === undefined ? '' : `:${r.fromPort}`}=${r.address}:${r.port}`)
            .join(', '),
    flag: {
      flags: '--resolve <HOST[:PORT]=ADDR:PORT>',
      repeated: true,
      parse: (texts: string[]) => texts.map(parseResolveRule),
    },
  },
  /**
   * CA certificates (PEM) trusted in addition to the system's, e.g. the simulated Web's test CA
   * (`--ca-file`).
   */
  caCertificates: {
    what: "PEM CA certificates to trust besides the system's (e.g. the simulated Web's)",
    default: Object.freeze([]) as readonly string[],
    check: (key: string, value: unknown): readonly string[] => {
      if (!Array.isArray(value) || !value.every(isPemCertificate)) {
        throw invalidInput(key, 'PEM certificates', value);
      }
      return Object.freeze([...value]);
    },
    show: (pems: readonly string[]) => (pems.length === 0 ? 'none' : `${pems.length} besides the system's`),
    flag: { flags: '--ca-file <file>', parse: readCaFile },
  },
  /** Lift the address guard (loopback, private ranges); for the simulated Web and tests only. */
  allowPrivate: {
    what: 'allow loopback and private addresses (the simulated Web, tests)',
    default: false,
    check: yesNo,
    show: String,
    flag: { flags: '--allow-private' },
  },
  /** Keep every HTTP exchange of a crawl as WARC in its run folder (docs/archive.md). */
  warc: {
    what: 'keep every exchange of the crawl in a WARC archive',
    default: true,
    check: yesNo,
    show: String,
    flag: {
      flags: '--no-warc',
      help: 'do not keep the WARC archive of the crawl (saves its disk space: docs/archive.md)',
    },
  },
  /** A WARC file is closed and the next one started once it passes this many bytes. */
  warcFileBytes: {
    ...wholeNumberOption('a WARC file is closed and the next begun past this size', 1, 2 ** 30),
    show: bytes,
  },
  /**
   * Re-visits send If-None-Match / If-Modified-Since from the document's previous observation, and
   * a 304 carries its statements over (docs/crawling.md, "Conditional re-visits").
   */
  conditional: {
    what: 're-visits ask with validators (If-None-Match / If-Modified-Since) and a 304 carries the statements over',
    default: true,
    check: yesNo,
    show: String,
    flag: {
      flags: '--no-conditional',
      help: 're-visits download every document in full (no If-None-Match / If-Modified-Since, no 304)',
    },
  },
  /**
   * When a breadth-first round (not round 0) ends before its queues are empty, its rest moving to
   * the next round (docs/crawling.md, "Rounds"): `observatory` once fewer PLDs are active than
   * there are fetch slots and the next round brings a PLD not active now; `ldspider` as soon as
   * fewer PLDs are active than there are slots (DESIGN.md's rule without our condition).
   */
  roundEnd: {
    what: 'when a round ends early (observatory: also only if the next round brings a PLD not active now)',
    default: 'observatory' as RoundEndRule,
    check: oneOf(ROUND_END_RULES),
    show: String,
    flag: { flags: '--round-end <rule>', shown: String, choices: ROUND_END_RULES },
  },
  /** Which ready PLD a free fetch slot serves (pipeline/crawl/policy.ts). */
  policy: {
    what: 'which ready PLD a free slot serves',
    default: 'longest-first' as PolicyName,
    check: oneOf(POLICY_NAMES),
    show: String,
    flag: { flags: '--policy <name>', shown: String, choices: POLICY_NAMES },
  },
  /**
   * The named bundle of options (`--profile`, on the commands that have it) the command line
   * started from, recorded in the manifest's config; absent without one.
   */
  profile: {
    what: 'the named bundle of options the command line started from (--profile)',
    default: undefined as string | undefined,
    optional: true,
    check: (key: string, value: unknown): string | undefined => {
      if (value !== undefined && typeof value !== 'string')
        throw invalidInput(key, 'the name of a profile', value);
      return value;
    },
    show: (name: string | undefined) => name ?? 'none',
  },
} satisfies Record<string, CrawlOption<unknown>>;

type Options = typeof CRAWL_OPTIONS;
export type CrawlOptionKey = keyof Options;
type ValueOf<K extends CrawlOptionKey> = ReturnType<Options[K]['check']>;
type OptionalKey = {
  [K in CrawlOptionKey]: Options[K] extends { optional: true } ? K : never;
}[CrawlOptionKey];

/** Every knob of fetching and crawling (CRAWL_OPTIONS), fully defaulted and frozen once at the boundary. */
export type CrawlConfig = {
  readonly [K in Exclude<CrawlOptionKey, OptionalKey>]: ValueOf<K>;
} & { readonly [K in OptionalKey]?: Exclude<ValueOf<K>, undefined> };

/** The table's entries in its order, each typed as an option of some value. */
export const CRAWL_OPTION_ENTRIES = Object.entries(CRAWL_OPTIONS) as [CrawlOptionKey, CrawlOption<unknown>][];

export const CRAWL_DEFAULTS: CrawlConfig = Object.freeze(
  Object.fromEntries(
    CRAWL_OPTION_ENTRIES.filter(([, o]) => o.default !== undefined).map(([k, o]) => [k, o.default]),
  ),
) as CrawlConfig;

/** Validates a partial crawl config once, at the boundary, into a frozen, fully defaulted one. */
export function crawlConfig(input: Partial<CrawlConfig> = {}): CrawlConfig {
  const given = input as Readonly<Record<string, unknown>>;
  const token = productToken('productToken', given.productToken ?? PRODUCT_TOKEN);
  const c: Record<string, unknown> = {};
  for (const [key, option] of CRAWL_OPTION_ENTRIES) {
    const fallback = key === 'userAgent' ? userAgentFor(token) : option.default;
    const value = given[key] === undefined ? fallback : given[key];
    if (value !== undefined || !option.optional) c[key] = option.check(key, value);
  }
  if (!(c.userAgent as string).includes(token)) {
    throw invalidInput('userAgent', `a User-Agent containing the product token ${token}`, c.userAgent);
  }
  return Object.freeze(c) as CrawlConfig;
}

/**
 * The config as a manifest records it: every option in the table's order (optional ones when set),
 * so that a reader of the manifest sees what the crawl ran with.
 */
export function recordedConfig(config: CrawlConfig): Record<string, unknown> {
  const c = config as Readonly<Record<string, unknown>>;
  return Object.fromEntries(CRAWL_OPTION_ENTRIES.filter(([k]) => c[k] !== undefined).map(([k]) => [k, c[k]]));
}

/** One option as the About page lists it. */
export interface CrawlSetting {
  readonly key: CrawlOptionKey;
  /** The command line's flag for it, e.g. `--delay`; null: the option has none. */
  readonly flag: string | null;
  readonly what: string;
  /** The value, as people read it (`2 s`, `32 MiB`). */
  readonly shown: string;
  /** True when the record did not hold it (or held it malformed) and the default stands in. */
  readonly isDefault: boolean;
}

/**
 * The settings a recorded config (a manifest's, any age) states, each checked as the table checks
 * it; a setting it does not hold, or holds in a form no crawl runs with, is the default, marked as
 * such. An optional setting it does not hold was not set (no `--profile`): that is what it states.
 * No record at all (undefined): every setting is the default.
 */
export function recordedSettings(recorded: unknown): { config: CrawlConfig; settings: CrawlSetting[] } {
  const given = (
    typeof recorded === 'object' && recorded !== null && !Array.isArray(recorded) ? recorded : {}
  ) as Readonly<Record<string, unknown>>;
  const config: Record<string, unknown> = {};
  const defaulted = new Map<CrawlOptionKey, boolean>();
  for (const [key, option] of CRAWL_OPTION_ENTRIES) {
    let value = option.default;
    let isDefault = recorded === undefined || !option.optional;
    if (Object.hasOwn(given, key)) {
      try {
        value = option.check(key, given[key]);
        isDefault = false;
      } catch {
        // a malformed record of one setting says nothing of it: the default, marked as one
      }
    }
    config[key] = value;
    defaulted.set(key, isDefault);
  }
  // the User-Agent and product token only as a pair: never one crawl's token beside another's header
  if (!(config.userAgent as string).includes(config.productToken as string)) {
    for (const key of ['userAgent', 'productToken'] as const) {
      config[key] = CRAWL_DEFAULTS[key];
      defaulted.set(key, true);
    }
  }
  const settings = CRAWL_OPTION_ENTRIES.map(([key, option]) => ({
    key,
    flag: flagName(option),
    what: option.what,
    shown: option.show(config[key]),
    isDefault: defaulted.get(key)!,
  }));
  const set = Object.entries(config).filter(([, value]) => value !== undefined);
  return { config: Object.fromEntries(set) as CrawlConfig, settings };
}

/** `--delay` of `--delay <seconds>`; `--warc` is written `--no-warc`. */
export function flagName(option: CrawlOption<unknown>): string | null {
  return option.flag ? option.flag.flags.split(' ')[0] : null;
}
