import zlib from 'node:zlib';

/**
 * What we ask servers for: every RDF syntax first, (X)HTML lower because it only counts when it
 * carries RDFa, anything else last, since DESIGN.md says we detect the syntax from the content
 * when the type is missing or wrong.
 */
export const ACCEPT_RDF = [
  'application/rdf+xml',
  'text/turtle',
  'application/n-triples',
  'application/n-quads',
  'application/trig',
  'application/ld+json',
  'text/n3;q=0.9',
  'application/xhtml+xml;q=0.5',
  'text/html;q=0.4',
  '*/*;q=0.1',
].join(', ');

/** What a JSON-LD context loader asks for. */
export const ACCEPT_JSONLD = 'application/ld+json, application/json;q=0.9, */*;q=0.1';

/** The content codings we decode ourselves (zstd only where this Node has it). */
export const ACCEPT_ENCODING =
  typeof zlib.createZstdDecompress === 'function' ? 'gzip, deflate, br, zstd' : 'gzip, deflate, br';
