import { Parser } from 'n3';
import { createLeanFactory } from './lean-factory.ts';
import type { SyntaxInput, SyntaxParser } from './syntax-parser.ts';

type ParserFactory = NonNullable<ConstructorParameters<typeof Parser>[0]>['factory'];
type N3Format = 'N-Triples' | 'N-Quads' | 'Turtle' | 'TriG' | 'N3';

/** The parts of n3's lexer (2.13, pinned) that `tokenizeInPlace` drives. */
interface N3LexerInternals {
  tokenize(input: string, callback: (error: Error | null, token: unknown) => void): void;
  _startTokenization(): void;
  _readStartingBom(input: string): string;
  _input: string;
  _tryTokenizeToEnd(callback: (error: Error | null, token: unknown) => void, inputFinished: boolean): void;
}

/**
 * Given a callback, n3 tokenizes a string in a microtask, so an exception from its grammar (a
 * hostile document triggers one: an unresolvable prefix IRI after a syntax error) escapes every
 * try/catch and would crash the crawler. Tokenizing at once keeps the whole parse inside the
 * caller's try; statements are still delivered one by one, so those before an error are kept.
 * test/reliability/fuzz.test.ts guards this against n3 upgrades.
 */
function tokenizeInPlace(parser: Parser): void {
  const lexer = (parser as unknown as { _lexer: N3LexerInternals })._lexer;
  lexer.tokenize = (input, callback) => {
    lexer._startTokenization();
    lexer._input = lexer._readStartingBom(input);
    lexer._tryTokenizeToEnd(callback, true);
  };
}

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
      tokenizeInPlace(parser);
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
