import { readFileSync } from 'node:fs';
import { invalidInput } from './errors.ts';

/** The software's name, and the product token it crawls under unless the operator names another. */
export const SOFTWARE_NAME = 'LinkedDataObservatory';
/** The default product token robots.txt files name to address our crawler (RFC 9309 section 2.2.1). */
export const PRODUCT_TOKEN = SOFTWARE_NAME;
/**
 * The release, from package.json (its one home): what manifests record as `softwareVersion`, the
 * User-Agent and `--version` say. A release that changes what is published bumps it, so that a
 * manifest says which code published it (0.1.0 up to the tag `wave2`, snapshot schema 3).
 */
export const SOFTWARE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

/** The User-Agent a crawl under `productToken` sends unless one is given: the token, our version and About page. */
export function userAgentFor(productToken: string): string {
  return `${productToken}/${SOFTWARE_VERSION} (+https://linked-data-observatory.github.io/about/)`;
}

export const DEFAULT_USER_AGENT = userAgentFor(PRODUCT_TOKEN);

/**
 * `value` when it is a product token as RFC 9309 2.2.1 allows (letters, `_` and `-`), else
 * `invalid_input` naming `what` (the config key, or the CLI option).
 */
export function productToken(what: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z_-]+$/.test(value)) {
    throw invalidInput(what, 'a product token of letters, _ and - only (RFC 9309 2.2.1)', value);
  }
  return value;
}

/**
 * Where `--resolve HOST[:PORT]=ADDR:PORT` sends a host; `*` as host matches every host. With a
 * port on the left, the rule applies only to URLs of that port (443 for `https:` URLs without one).
 */
export interface ResolveRule {
  readonly host: string;
  /** The URL port the rule is for; absent: every port. */
  readonly fromPort?: number;
  readonly address: string;
  readonly port: number;
}

/** Every knob of fetching and crawling, fully defaulted and frozen once at the boundary. */
export interface CrawlConfig {
  /** The User-Agent header of every request; it must contain the product token (default: userAgentFor it). */
  readonly userAgent: string;
  /** The name robots.txt groups address the crawler by (RFC 9309 2.2.1): letters, `_` and `-`. */
  readonly productToken: string;
  /** Fetches in flight at once across all PLDs. */
  readonly concurrency: number;
  /** Minimum gap between the starts of two requests to one PLD, in milliseconds. */
  readonly delayMs: number;
  /** Requests in flight at once to one PLD. */
  readonly perPld: number;
  /** Limit for a whole fetch (connect, headers and body), in milliseconds. */
  readonly timeoutMs: number;
  /** Limit on decompressed response bytes. */
  readonly maxBytes: number;
  /** Redirect hops followed before `redirect_limit`. */
  readonly maxRedirects: number;
  /** A robots.txt Crawl-delay above this (milliseconds) is capped to it. */
  readonly crawlDelayCapMs: number;
  /** robots.txt bytes parsed at most (RFC 9309 asks for at least 500 KiB). */
  readonly robotsMaxBytes: number;
  /** How long a fetched robots.txt is trusted, in milliseconds (RFC 9309: at most 24 h). */
  readonly robotsTtlMs: number;
  /** How long a robots.txt that answered 5xx/429 or was unreachable blocks its authority before we ask again. */
  readonly robotsUnavailableTtlMs: number;
  /** Attempts for a fetch whose error says retry (5xx, 429, reset, timeout), first included. */
  readonly maxAttempts: number;
  /**
   * Links of one document the frontier takes at most (in document order): a document with a
   * million links must not grow the frontier by a million URLs.
   */
  readonly maxLinksPerDocument: number;
  /**
   * Distinct remote JSON-LD contexts one document may name (nested ones included): a document
   * naming thousands of contexts on as many hosts must not send the crawler to all of them.
   */
  readonly maxContextsPerDocument: number;
  /** Remote JSON-LD contexts one crawl fetches at most (each fetched once; cached ones are free). */
  readonly maxContextsPerCrawl: number;
  /** CPU milliseconds parsing and hashing one document may take (`too_complex` past it). */
  readonly parseBudgetMs: number;
  /**
   * MiB of heap (V8 old generation) one parse worker may use; a document that needs more is
   * `too_complex`. One worker per core, so the crawl's parsing takes at most cores x this.
   */
  readonly parseMemoryMb: number;
  /**
   * MiB that the documents in flight may cost together: bodies being received and held, their
   * parse and their statements until journaled (core/memory-budget.ts, rdf/read-cost.ts). Past it
   * bodies wait, never fail; one document alone may cost more (docs/crawling.md, "Memory budget").
   */
  readonly memoryBudgetMb: number;
  readonly resolve: readonly ResolveRule[];
  /**
   * CA certificates (PEM) trusted in addition to the system's, e.g. the simulated Web's test CA
   * (`--ca-file`).
   */
  readonly caCertificates: readonly string[];
  /** Lift the address guard (loopback, private ranges); for the simulated Web and tests only. */
  readonly allowPrivate: boolean;
  /** Keep every HTTP exchange of a crawl as WARC in its run folder (docs/archive.md). */
  readonly warc: boolean;
  /** A WARC file is closed and the next one started once it passes this many bytes. */
  readonly warcFileBytes: number;
  /**
   * Re-visits send If-None-Match / If-Modified-Since from the document's previous observation, and
   * a 304 carries its statements over (docs/crawling.md, "Conditional re-visits").
   */
  readonly conditional: boolean;
  /**
   * When a breadth-first round (not round 0) ends before its queues are empty, its rest moving to
   * the next round (docs/crawling.md, "Rounds"): `observatory` once fewer PLDs are active than
   * there are fetch slots and the next round brings a PLD not active now; `ldspider` as soon as
   * fewer PLDs are active than there are slots (DESIGN.md's rule without our condition).
   */
  readonly roundEnd: RoundEndRule;
  /**
   * The named bundle of options (`--profile`) the command line started from, recorded in the
   * manifest's config; absent without one.
   */
  readonly profile?: string;
}

export type RoundEndRule = 'observatory' | 'ldspider';

export const ROUND_END_RULES: readonly RoundEndRule[] = ['observatory', 'ldspider'];

export const CRAWL_DEFAULTS: CrawlConfig = Object.freeze({
  userAgent: DEFAULT_USER_AGENT,
  productToken: PRODUCT_TOKEN,
  concurrency: 64,
  delayMs: 2000,
  perPld: 1,
  timeoutMs: 120_000,
  maxBytes: 32 * 1024 * 1024,
  maxRedirects: 5,
  crawlDelayCapMs: 60_000,
  robotsMaxBytes: 500 * 1024,
  robotsTtlMs: 24 * 3_600_000,
  robotsUnavailableTtlMs: 10 * 60_000,
  maxAttempts: 2,
  maxLinksPerDocument: 10_000,
  maxContextsPerDocument: 8,
  maxContextsPerCrawl: 1_000,
  parseBudgetMs: 60_000,
  parseMemoryMb: 192,
  memoryBudgetMb: 1024,
  resolve: Object.freeze([]),
  caCertificates: Object.freeze([]),
  allowPrivate: false,
  warc: true,
  warcFileBytes: 1024 * 1024 * 1024,
  conditional: true,
  roundEnd: 'observatory',
});

function wholeNumber(name: string, value: unknown, least: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
    throw invalidInput(name, `a whole number of at least ${least}`, value);
  }
  return value;
}

function nonNegative(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidInput(name, 'a number of at least 0', value);
  }
  return value;
}

/** Validates a partial crawl config once, at the boundary, into a frozen, fully defaulted one. */
export function crawlConfig(input: Partial<CrawlConfig> = {}): CrawlConfig {
  const token = productToken('productToken', input.productToken ?? CRAWL_DEFAULTS.productToken);
  const c = { ...CRAWL_DEFAULTS, ...input, userAgent: input.userAgent ?? userAgentFor(token) };
  for (const k of [
    'concurrency',
    'perPld',
    'maxRedirects',
    'maxBytes',
    'robotsMaxBytes',
    'maxAttempts',
    'maxLinksPerDocument',
    'warcFileBytes',
    'memoryBudgetMb',
  ] as const) {
    wholeNumber(k, c[k], 1);
  }
  // below this a worker cannot even load the parsers
  wholeNumber('parseMemoryMb', c.parseMemoryMb, 64);
  for (const k of [
    'delayMs',
    'timeoutMs',
    'crawlDelayCapMs',
    'robotsTtlMs',
    'robotsUnavailableTtlMs',
    'parseBudgetMs',
  ] as const) {
    nonNegative(k, c[k]);
  }
  for (const k of ['maxContextsPerDocument', 'maxContextsPerCrawl'] as const) {
    wholeNumber(k, c[k], 0);
  }
  for (const k of ['timeoutMs', 'parseBudgetMs'] as const) {
    if (c[k] === 0) throw invalidInput(k, 'a positive number of milliseconds', c[k]);
  }
  for (const k of ['warc', 'conditional'] as const) {
    if (typeof c[k] !== 'boolean') throw invalidInput(k, 'true or false', c[k]);
  }
  if (!ROUND_END_RULES.includes(c.roundEnd))
    throw invalidInput('roundEnd', ROUND_END_RULES.join(' or '), c.roundEnd);
  if (c.profile !== undefined && typeof c.profile !== 'string')
    throw invalidInput('profile', 'the name of a profile', c.profile);
  if (typeof c.userAgent !== 'string' || !c.userAgent.includes(c.productToken)) {
    throw invalidInput(
      'userAgent',
      `a User-Agent containing the product token ${c.productToken}`,
      c.userAgent,
    );
  }
  if (!Array.isArray(c.caCertificates) || !c.caCertificates.every(isPemCertificate)) {
    throw invalidInput('caCertificates', 'PEM certificates', c.caCertificates);
  }
  return Object.freeze({
    ...c,
    resolve: Object.freeze([...c.resolve]),
    caCertificates: Object.freeze([...c.caCertificates]),
  });
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function isPemCertificate(text: unknown): boolean {
  return (
    typeof text === 'string' && /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/.test(text)
  );
}

/** The PEM certificates in a CA file's text, one string each (a bundle holds many). */
export function pemCertificates(text: string): string[] {
  return [...text.matchAll(PEM_CERTIFICATE)].map((m) => `${m[0]}\n`);
}

const isPort = (n: number) => n >= 1 && n <= 65535;

/**
 * Parses one `--resolve HOST[:PORT]=ADDR:PORT` value (curl's idea; `*` as host matches every host;
 * `*:443=127.0.0.1:8443` routes only URLs of port 443, i.e. `https:` ones without a port).
 */
export function parseResolveRule(text: string): ResolveRule {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^=\s:]+)(?::(\d{1,5}))?=(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(
    text.trim(),
  );
  const port = m ? Number(m[4]) : 0;
  const fromPort = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || !isPort(port) || (fromPort !== undefined && !isPort(fromPort))) {
    throw invalidInput(
      '--resolve',
      'HOST[:PORT]=ADDR:PORT, e.g. *=127.0.0.1:8080, *:443=127.0.0.1:8443 or dbpedia.org=127.0.0.1:8080',
      text,
    );
  }
  const host = m[1].toLowerCase().replace(/^\[|\]$/g, '');
  const address = m[3].replace(/^\[|\]$/g, '');
  return Object.freeze(fromPort === undefined ? { host, address, port } : { host, fromPort, address, port });
}

/**
 * The rule that routes `host` for a URL of `port`: the exact host before `*`, and for each a rule
 * naming the port before one for every port.
 */
export function findResolveRule(
  rules: readonly ResolveRule[],
  host: string,
  port: number,
): ResolveRule | undefined {
  const h = host.toLowerCase();
  const find = (name: string) =>
    rules.find((r) => r.host === name && r.fromPort === port) ??
    rules.find((r) => r.host === name && r.fromPort === undefined);
  return find(h) ?? find('*');
}
