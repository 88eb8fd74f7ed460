import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { MAX_XML_DEPTH, markupDepth } from './markup-depth.ts';
import { driveStreamParser } from './stream-parser.ts';
import type { SyntaxInput } from './syntax-parser.ts';

/** RDF/XML through rdfxml-streaming-parser (saxes: no DTD entity expansion, so no entity bombs). */
export function parseRdfXml({ text, baseIri, builder }: SyntaxInput): Promise<string | null> {
  if (markupDepth(text, false, MAX_XML_DEPTH) > MAX_XML_DEPTH)
    return Promise.resolve(`XML nested deeper than ${MAX_XML_DEPTH} levels`);
  return driveStreamParser(new RdfXmlParser({ baseIRI: baseIri }), text, builder);
}
