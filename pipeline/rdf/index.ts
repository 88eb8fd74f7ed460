/**
 * The rdf stage: reads a fetched body in any RDF syntax into statements, lists the links in
 * them, writes N-Quads and computes isomorphism-invariant graph hashes and diffs.
 */
export type { CanonicalGraph, CanonicalMethod } from './canonical-lines.ts';
export { canonicalGraph } from './canonical-lines.ts';
export { contextLimitError, crawlContexts } from './crawl-contexts.ts';
export type { GraphDiff } from './graph-diff.ts';
export { diffStatements } from './graph-diff.ts';
export { graphHash } from './graph-hash.ts';
export { extractLinks } from './links.ts';
export { formatForMediaType, MEDIA_TYPES, parseContentType } from './media-type.ts';
export { escapeIri, escapeLiteral } from './nquads-escape.ts';
export type { NQuadsSink, NQuadsWriter } from './nquads-writer.ts';
export { createNQuadsWriter, ntriplesLine, serializeNQuads } from './nquads-writer.ts';
export type { DocumentInput } from './parse-document.ts';
export { parseDocument } from './parse-document.ts';
export { publishesRdfa } from './rdfa-rule.ts';
export { READ_COST, readCost } from './read-cost.ts';
export type { ReadLimits, ReadResult } from './read-document.ts';
export { parseWorkersStarted, readDocument, readLimits, releaseParseWorkers } from './read-document.ts';
export type { ContextLoader } from './syntax-parser.ts';
