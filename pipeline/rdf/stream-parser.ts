import type { Transform } from 'node:stream';
import type { RdfJsQuad } from './rdf-terms.ts';
import type { StatementBuilder } from './statement-builder.ts';

/**
 * Runs an RDF/JS streaming parser (a Transform from text to quads) over a whole text. Quads after
 * the first error are ignored, so that "statements before the error" means exactly that.
 */
export function driveStreamParser(
  parser: Transform,
  text: string,
  builder: StatementBuilder,
): Promise<string | null> {
  return new Promise((resolve) => {
    let failed = false;
    parser.on('data', (quad: RdfJsQuad) => {
      if (!failed) builder.add(quad);
    });
    parser.on('error', (error: Error) => {
      failed = true;
      resolve(error.message || String(error));
    });
    parser.on('end', () => resolve(null));
    try {
      parser.end(text);
    } catch (error) {
      failed = true;
      resolve((error as Error).message);
    }
  });
}
