/**
 * Test helper: counts the statements a body yields with the RDF/JS parsers the project depends
 * on, so that the simulated Web's claimed counts are checked against real parsers.
 */
import jsonld from 'jsonld';
import { Parser } from 'n3';
import { RdfaParser } from 'rdfa-streaming-parser';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import type { RdfFormat } from '../../pipeline/core/index.ts';

const N3_NAMES: Partial<Record<RdfFormat, string>> = {
  turtle: 'Turtle',
  trig: 'TriG',
  ntriples: 'N-Triples',
  nquads: 'N-Quads',
  n3: 'N3',
};

export interface Counted {
  statements: number;
  error: string | null;
}

function streamCount(parser: NodeJS.ReadWriteStream, body: string): Promise<Counted> {
  return new Promise((resolve) => {
    let statements = 0;
    parser.on('data', () => statements++);
    parser.on('error', (e: Error) => resolve({ statements, error: e.message }));
    parser.on('end', () => resolve({ statements, error: null }));
    parser.write(body);
    parser.end();
  });
}

/** Statements in `body` parsed as `format` (from `baseIRI`), and the parse error if any. */
export async function countStatements(format: RdfFormat, body: string, baseIRI: string): Promise<Counted> {
  if (N3_NAMES[format]) {
    let statements = 0;
    return new Promise((resolve) => {
      new Parser({ format: N3_NAMES[format], baseIRI }).parse(body, (error, q) => {
        if (error) resolve({ statements, error: error.message });
        else if (q) statements++;
        else resolve({ statements, error: null });
      });
    });
  }
  if (format === 'jsonld') {
    try {
      const ds = (await jsonld.toRDF(JSON.parse(body), { base: baseIRI })) as unknown[];
      return { statements: ds.length, error: null };
    } catch (e) {
      return { statements: 0, error: (e as Error).message };
    }
  }
  if (format === 'rdfxml') return streamCount(new RdfXmlParser({ baseIRI }) as never, body);
  return streamCount(new RdfaParser({ baseIRI, contentType: 'text/html' }) as never, body);
}
