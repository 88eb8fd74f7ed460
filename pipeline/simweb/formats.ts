import type { RdfFormat } from '../core/index.ts';

/** How each RDF syntax is announced on the simulated Web. */
export interface FormatInfo {
  readonly format: RdfFormat;
  readonly mediaType: string;
  readonly extension: string;
  /** Share of documents published in this syntax (measured Web: RDF/XML first, then Turtle ...). */
  readonly share: number;
}

export const FORMATS: readonly FormatInfo[] = Object.freeze([
  { format: 'rdfxml', mediaType: 'application/rdf+xml', extension: 'rdf', share: 0.42 },
  { format: 'turtle', mediaType: 'text/turtle', extension: 'ttl', share: 0.2 },
  { format: 'jsonld', mediaType: 'application/ld+json', extension: 'jsonld', share: 0.11 },
  { format: 'ntriples', mediaType: 'application/n-triples', extension: 'nt', share: 0.1 },
  { format: 'rdfa', mediaType: 'text/html', extension: 'html', share: 0.09 },
  { format: 'nquads', mediaType: 'application/n-quads', extension: 'nq', share: 0.03 },
  { format: 'trig', mediaType: 'application/trig', extension: 'trig', share: 0.03 },
  { format: 'n3', mediaType: 'text/n3', extension: 'n3', share: 0.02 },
] as const satisfies readonly FormatInfo[]);

const BY_FORMAT = new Map(FORMATS.map((f) => [f.format, f]));

/** The announcement of one syntax. */
export function formatInfo(format: RdfFormat): FormatInfo {
  return BY_FORMAT.get(format)!;
}

/** Weights in FORMATS order, for weighted picks. */
export const FORMAT_SHARES: readonly number[] = FORMATS.map((f) => f.share);
