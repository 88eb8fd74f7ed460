import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { buildConnector } from 'undici';
import { type CrawlConfig, findResolveRule, ObservatoryError } from '../core/index.ts';
import { isBlockedAddress } from './address-guard.ts';

/** Where one connection to a host goes: the checked address and port it is pinned to. */
export interface Target {
  readonly address: string;
  readonly port: number;
}

/** Every address of a host name, as DNS gives them; injectable so tests can play a rebinding resolver. */
export type LookupAll = (host: string) => Promise<string[]>;

const systemLookup: LookupAll = async (host) =>
  (await lookup(host, { all: true, order: 'verbatim' })).map((a) => a.address);

async function addressesOf(host: string, lookupAll: LookupAll): Promise<string[]> {
  if (isIP(host)) return [host];
  // RFC 6761 section 6.4: `.invalid` names never resolve, so do not ask a resolver about them.
  if (host === 'invalid' || host.endsWith('.invalid')) {
    throw new ObservatoryError('dns', `${host}: reserved name that never resolves (RFC 6761)`);
  }
  try {
    return await lookupAll(host);
  } catch (error) {
    throw new ObservatoryError('dns', `${host}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Decides where a connection to `host:port` goes (`port` is the URL's: 443 for https without
 * one): a `--resolve` rule, else every address DNS
 * gives. Refuses with `blocked_address` if any of them is non-public (unless allowPrivate), and
 * returns the one address to connect to, so that what was checked is what is connected to.
 */
export async function resolveTarget(
  config: CrawlConfig,
  host: string,
  port: number,
  lookupAll: LookupAll = systemLookup,
): Promise<Target> {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  const rule = findResolveRule(config.resolve, name, port);
  const addresses = await addressesOf(rule ? rule.address : name, lookupAll);
  if (addresses.length === 0) throw new ObservatoryError('dns', `${name}: no address`);
  if (!config.allowPrivate) {
    const blocked = addresses.find(isBlockedAddress);
    if (blocked !== undefined) {
      throw new ObservatoryError('blocked_address', `${name} resolves to non-public address ${blocked}`);
    }
  }
  return { address: addresses[0], port: rule ? rule.port : port };
}

/**
 * An undici connector that resolves and checks every new connection itself and connects to the
 * checked address (no second lookup, so DNS rebinding cannot slip in). Host header, TLS server
 * name (SNI) and the certificate's host name check stay the original host. Extra CA certificates
 * are added to the system's: Node's `ca` option replaces the default store rather than adding to it.
 */
export function pinnedConnector(
  config: CrawlConfig,
  lookupAll: LookupAll = systemLookup,
): buildConnector.connector {
  const ca = config.caCertificates.length > 0 ? [...rootCertificates, ...config.caCertificates] : undefined;
  const connect = buildConnector({ timeout: config.timeoutMs, ...(ca ? { ca } : {}) });
  return (options: buildConnector.Options, callback: buildConnector.Callback) => {
    const defaultPort = options.protocol === 'https:' ? 443 : 80;
    const port = Number(options.port) || defaultPort;
    resolveTarget(config, options.hostname, port, lookupAll).then(
      (target) => {
        const servername = options.servername || (isIP(options.hostname) ? undefined : options.hostname);
        connect({ ...options, hostname: target.address, port: String(target.port), servername }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}
