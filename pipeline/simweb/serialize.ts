/** One entry point for writing a graph in any syntax of the simulated Web. */
import { DataFactory, type Quad, Writer } from 'n3';
import type { RdfFormat } from '../core/index.ts';
import { formatInfo } from './formats.ts';
import { writeJsonLd } from './jsonld-writer.ts';
import { PREFIXES } from './prefixes.ts';
import { writeRdfa } from './rdfa-writer.ts';
import { writeRdfXml } from './rdfxml-writer.ts';

const N3_FORMATS: Partial<Record<RdfFormat, string>> = {
  turtle: 'Turtle',
  trig: 'TriG',
  ntriples: 'N-Triples',
  nquads: 'N-Quads',
  n3: 'N3',
};

export interface Serialized {
  readonly body: Buffer;
  /** Content-Type value, parameters included. */
  readonly contentType: string;
}

function writeN3(quads: readonly Quad[], format: string, graph: string | null): string {
  const prefixed = format === 'Turtle' || format === 'TriG' || format === 'N3';
  const writer = new Writer({ format, prefixes: prefixed ? PREFIXES : undefined });
  let out = '';
  if (graph === null) writer.addQuads([...quads]);
  else {
    const g = DataFactory.namedNode(graph);
    writer.addQuads(quads.map((q) => DataFactory.quad(q.subject, q.predicate, q.object, g)));
  }
  writer.end((error, result) => {
    if (error) throw error;
    out = result;
  });
  return out;
}

/** The Content-Type a syntax is announced with (`latin1`: RDFa pages declaring ISO-8859-1). */
export function contentTypeOf(format: RdfFormat, latin1 = false): string {
  if (format === 'rdfa') return `text/html; charset=${latin1 ? 'ISO-8859-1' : 'utf-8'}`;
  const info = formatInfo(format);
  return format === 'turtle' || format === 'n3' ? `${info.mediaType}; charset=utf-8` : info.mediaType;
}

/**
 * Writes `quads` in `format`. Quad syntaxes (N-Quads, TriG) put the statements in a named graph
 * named after the document. `latin1` applies to RDF/XML and RDFa, whose encodings can say so.
 */
export function serialize(
  quads: readonly Quad[],
  format: RdfFormat,
  docUrl: string,
  options: { latin1?: boolean; title?: string } = {},
): Serialized {
  const latin1 = options.latin1 === true;
  const contentType = contentTypeOf(format, latin1);
  switch (format) {
    case 'rdfxml':
      return { body: writeRdfXml(quads, latin1), contentType };
    case 'jsonld':
      return { body: writeJsonLd(quads), contentType };
    case 'rdfa':
      return {
        body: writeRdfa(quads, options.title ?? docUrl, latin1 ? 'ISO-8859-1' : 'utf-8'),
        contentType,
      };
    default: {
      const quadGraph = format === 'nquads' || format === 'trig' ? docUrl : null;
      return { body: Buffer.from(writeN3(quads, N3_FORMATS[format]!, quadGraph)), contentType };
    }
  }
}
