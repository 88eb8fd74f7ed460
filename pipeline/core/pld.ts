import { getDomain } from 'tldts';

/**
 * The pay-level domain of a host (ICANN section of the Public Suffix List: `a.b.example.ac.uk`
 * -> `example.ac.uk`). Politeness, frontier queues and statistics are all per PLD. Hosts without
 * a registrable domain (IP literals, `localhost`) are their own PLD.
 */
export function payLevelDomain(host: string): string {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  // hosts come from WHATWG URL parsing, which allows characters tldts's validation refuses (`{}`):
  // without validation `a.evil{}.org` still groups under `evil{}.org` for politeness
  return getDomain(h, { allowPrivateDomains: false, validateHostname: false }) ?? h;
}

/** The PLD of a URL that has no host (never one of ours: crawled URLs are http(s) and always have one). */
export const NO_HOST_PLD = '(no host)';

/**
 * PLD of a URL string: always derived from its host (WHATWG parsing, as the frontier normalises
 * URLs), never the URL itself, even where the Public Suffix List finds no registrable domain in a
 * host such as `evil{}.org` (then the host is its own PLD); NO_HOST_PLD for a URL without a host.
 */
export function urlPld(url: string): string {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // not a URL: no host
  }
  return host === '' ? NO_HOST_PLD : payLevelDomain(host);
}
