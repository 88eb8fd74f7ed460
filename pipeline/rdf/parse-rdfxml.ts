import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { driveStreamParser } from './stream-parser.ts';
import type { SyntaxInput } from './syntax-parser.ts';

/** RDF/XML through rdfxml-streaming-parser (saxes: no DTD entity expansion, so no entity bombs). */
export function parseRdfXml({ text, baseIri, builder }: SyntaxInput): Promise<string | null> {
  return driveStreamParser(new RdfXmlParser({ baseIRI: baseIri }), text, builder);
}
