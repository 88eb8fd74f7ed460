import { Parser } from 'n3';
import { createLeanFactory } from './lean-factory.ts';
import type { SyntaxInput, SyntaxParser } from './syntax-parser.ts';

type ParserFactory = NonNullable<ConstructorParameters<typeof Parser>[0]>['factory'];
type N3Format = 'N-Triples' | 'N-Quads' | 'Turtle' | 'TriG' | 'N3';

/** An adapter for one of the syntaxes n3 reads; the parser mode is fixed per syntax, once. */
export function n3FamilyParser(format: N3Format): SyntaxParser {
  const formulas = format === 'N3';
  return ({ text, baseIri, builder }: SyntaxInput) =>
    new Promise((resolve) => {
      const factory = formulas ? undefined : (createLeanFactory() as unknown as ParserFactory);
      const parser = new Parser({ format, baseIRI: baseIri, factory });
      // in N3, quads in a non-default graph are inside formulas (quoted, not asserted)
      const add = formulas ? builder.addDefaultGraphOnly : builder.add;
      try {
        parser.parse(text, (error, quad) => {
          if (error) resolve(error.message);
          else if (quad) add(quad);
          else resolve(null);
        });
      } catch (error) {
        resolve((error as Error).message);
      }
    });
}
