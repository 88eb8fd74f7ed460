import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { MAX_XML_DEPTH, xmlDepth } from './markup-depth.ts';
import { driveStreamParser } from './stream-parser.ts';
import type { Refusal, SyntaxInput } from './syntax-parser.ts';

/** RDF/XML through rdfxml-streaming-parser (saxes: no DTD entity expansion, so no entity bombs). */
export function parseRdfXml({ text, baseIri, builder }: SyntaxInput): Promise<string | Refusal | null> {
  if (xmlDepth(text, MAX_XML_DEPTH) > MAX_XML_DEPTH)
    return Promise.resolve({
      code: 'too_complex',
      message: `XML nested deeper than ${MAX_XML_DEPTH} levels`,
    });
  return driveStreamParser(new RdfXmlParser({ baseIRI: baseIri }), text, builder);
}
