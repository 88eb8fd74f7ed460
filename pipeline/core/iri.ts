/**
 * The longest URL the crawler takes, in characters (RFC 9110 section 4.1 asks servers for at least
 * 8,000 octets of request line). A longer link is no candidate, a longer seed or kernel line is
 * refused, a longer redirect is `redirect_invalid`: a hostile page linking a 3 MB IRI once got
 * fetched, archived and then stopped every publish at the CDXJ sort.
 */
export const MAX_URL_LENGTH = 8192;

/**
 * IRI normalisation for the frontier: lower-case scheme and host, default port removed, fragment
 * stripped (WHATWG URL does the first two and percent-encodes consistently). Only http(s) IRIs can
 * be crawled, so anything else normalises to null, as does one longer than MAX_URL_LENGTH (before
 * or after normalising, which may percent-encode it longer).
 */
export function normaliseIri(iri: string): string | null {
  if (iri.length > MAX_URL_LENGTH) return null;
  if (!iri.startsWith('http:') && !iri.startsWith('https:') && !/^https?:/i.test(iri)) return null;
  let url: URL;
  try {
    url = new URL(iri);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.hostname === '') return null;
  url.hash = '';
  return url.href.length > MAX_URL_LENGTH ? null : url.href;
}

/** The IRI without its fragment, unchanged otherwise: the document a hash IRI lives in. */
export function stripFragment(iri: string): string {
  const hash = iri.indexOf('#');
  return hash === -1 ? iri : iri.slice(0, hash);
}
