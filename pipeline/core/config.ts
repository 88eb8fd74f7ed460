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

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

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
