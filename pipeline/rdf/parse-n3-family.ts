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
      // Turtle, TriG, N-Triples, N-Quads: n3 makes the final blank-node labels itself (the
      // document's prefix + the label as written), which spares a relabelling map per quad.
      // N3 keeps n3's own terms (its formulas read term ids) and is relabelled.
      const parser = formulas
        ? new Parser({ format, baseIRI: baseIri })
        : new Parser({
            format,
            baseIRI: baseIri,
            blankNodePrefix: builder.labelPrefix,
            factory: createLeanFactory(builder.labelPrefix) as unknown as ParserFactory,
          });
      const add = formulas ? builder.addDefaultGraphOnly : builder.addPrefixed;
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
