import type { RdfFormat } from '../core/index.ts';

/** A Content-Type header split into its lower-cased media type and charset parameter. */
export interface ContentType {
  readonly mediaType: string | null;
  readonly charset: string | null;
}

/**
 * The media types each syntax is served as, registered ones first, then those seen in the wild.
 * Generic types (text/plain, application/octet-stream, application/json, application/xml,
 * text/xml) name no syntax: the content decides.
 */
export const MEDIA_TYPES: Readonly<Record<RdfFormat, readonly string[]>> = {
  rdfxml: ['application/rdf+xml'],
  turtle: ['text/turtle', 'application/x-turtle', 'application/turtle'],
  ntriples: ['application/n-triples', 'text/ntriples'],
  nquads: ['application/n-quads', 'text/x-nquads', 'text/nquads'],
  trig: ['application/trig', 'application/x-trig'],
  n3: ['text/n3', 'text/rdf+n3', 'application/n3'],
  jsonld: ['application/ld+json'],
  rdfa: ['text/html', 'application/xhtml+xml'],
};

const BY_MEDIA_TYPE = new Map<string, RdfFormat>(
  Object.entries(MEDIA_TYPES).flatMap(([format, types]) =>
    types.map((t) => [t, format as RdfFormat] as const),
  ),
);

/** Splits a Content-Type header; a missing or malformed one gives nulls. */
export function parseContentType(header: string | null): ContentType {
  if (!header) return { mediaType: null, charset: null };
  const [type, ...params] = header.split(';');
  const mediaType = type.trim().toLowerCase();
  let charset: string | null = null;
  for (const param of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (m) charset = m[1].toLowerCase();
  }
  return { mediaType: /^[\w.+-]+\/[\w.+-]+$/.test(mediaType) ? mediaType : null, charset };
}

/** The syntax a media type names, or null for generic and unknown types. */
export function formatForMediaType(mediaType: string | null): RdfFormat | null {
  return mediaType === null ? null : (BY_MEDIA_TYPE.get(mediaType) ?? null);
}
