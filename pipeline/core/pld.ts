import { getDomain, getHostname } from 'tldts';

/**
 * The pay-level domain of a host (ICANN section of the Public Suffix List: `a.b.example.ac.uk`
 * -> `example.ac.uk`). Politeness, frontier queues and statistics are all per PLD. Hosts without
 * a registrable domain (IP literals, `localhost`) are their own PLD.
 */
export function payLevelDomain(host: string): string {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return getDomain(h, { allowPrivateDomains: false }) ?? h;
}

/** PLD of a URL string; null when the URL has no host. */
export function urlPld(url: string): string | null {
  const host = getHostname(url);
  return host ? payLevelDomain(host) : null;
}
