import type { RdfFormat } from '../core/index.ts';
import { formatForMediaType, parseContentType } from './media-type.ts';

/**
 * What reading one body byte costs in memory, by syntax: `parse`, the parser's working set in its
 * worker at its peak (the text, the parser's state, the statements it builds); `statements`, the
 * statements handed back to the crawl until they are journaled. Measured on generated documents of
 * a few MB with `npm run bench memory-budget` (it prints them), rounded: RDF/XML, a JSON-LD
 * document expanded whole and an RDFa page cost tens of times their body; line-based syntaxes stream.
 */
export const READ_COST: Readonly<Record<RdfFormat, { readonly parse: number; readonly statements: number }>> =
  {
    ntriples: { parse: 3, statements: 2 },
    nquads: { parse: 3, statements: 2 },
    turtle: { parse: 6, statements: 4 },
    trig: { parse: 6, statements: 4 },
    n3: { parse: 6, statements: 4 },
    rdfxml: { parse: 15, statements: 3 },
    jsonld: { parse: 20, statements: 3 },
    // rdfa-streaming-parser keeps every element's text for its ancestors: more per byte the larger
    // the page (121 at 1.5 MB); the worker's heap limit caps it from ~2 MB on
    rdfa: { parse: 120, statements: 4 },
  };

/** For a body whose type names no syntax (sniffed when read): the most of each. */
const UNKNOWN = {
  parse: Math.max(...Object.values(READ_COST).map((c) => c.parse)),
  statements: Math.max(...Object.values(READ_COST).map((c) => c.statements)),
};

/**
 * Copies of the body itself: while it arrives its chunks and their concatenation, then the body
 * held and the copy a parse worker is given.
 */
const BODY_COPIES = 2;

const MIB = 1024 * 1024;

/**
 * Bytes of memory a body of `bytes` bytes served as `contentType` costs from its arrival until its
 * document is journaled: its copies, its statements, and its parse, which a parse worker's heap
 * limit (`parseMemoryMb`) caps. The crawl's memory budget charges this (core/memory-budget.ts).
 */
export function readCost(contentType: string | null, bytes: number, parseMemoryMb: number): number {
  const format = formatForMediaType(parseContentType(contentType).mediaType);
  const cost = format ? READ_COST[format] : UNKNOWN;
  return bytes * (BODY_COPIES + cost.statements) + Math.min(bytes * cost.parse, parseMemoryMb * MIB);
}
