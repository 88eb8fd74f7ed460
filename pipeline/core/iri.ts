/**
 * IRI normalisation for the frontier: lower-case scheme and host, default port removed, fragment
 * stripped (WHATWG URL does the first two and percent-encodes consistently). Only http(s) IRIs can
 * be crawled, so anything else normalises to null.
 */
export function normaliseIri(iri: string): string | null {
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
  return url.href;
}

/** The IRI without its fragment, unchanged otherwise: the document a hash IRI lives in. */
export function stripFragment(iri: string): string {
  const hash = iri.indexOf('#');
  return hash === -1 ? iri : iri.slice(0, hash);
}
