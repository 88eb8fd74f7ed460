import { isUtf8 } from 'node:buffer';
import { readPlainLines } from './ntriples-reader.ts';
import { n3FamilyParser } from './parse-n3-family.ts';
import type { StatementBuilder } from './statement-builder.ts';
import type { SyntaxParser } from './syntax-parser.ts';
import { readTurtle } from './turtle-reader.ts';

/** A fast reader of a whole document's UTF-8 bytes: false when it is unsure of some part. */
type FastReader = (utf8: Buffer, baseIri: string, builder: StatementBuilder) => boolean;

/**
 * An adapter that tries a fast reader of the bytes first, several times faster than n3 on the
 * documents the Web serves; when the reader is unsure of anything, its statements are dropped and
 * n3 reads the document from the start, so that what n3 accepts, refuses and reports is the
 * contract.
 */
function withFastReader(full: SyntaxParser, read: FastReader): SyntaxParser {
  return async (input) => {
    const { body, encoding, builder } = input;
    // a view of the body's bytes, not a copy; a body in another encoding is read as its text in UTF-8
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength).subarray(encoding.offset);
    const utf8 = encoding.encoding === 'utf-8' && isUtf8(bytes) ? bytes : Buffer.from(input.text);
    if (read(utf8, input.baseIri, builder)) return null;
    builder.discard();
    return full(input);
  };
}

/** N-Triples or N-Quads: the plain-form reader (ntriples-reader.ts), then n3. */
export function lineFormatParser(format: 'N-Triples' | 'N-Quads'): SyntaxParser {
  const quads = format === 'N-Quads';
  return withFastReader(n3FamilyParser(format), (utf8, _base, builder) =>
    readPlainLines(utf8, quads, builder),
  );
}

/** Turtle: the Turtle reader (turtle-reader.ts), then n3. */
export function turtleParser(): SyntaxParser {
  return withFastReader(n3FamilyParser('Turtle'), readTurtle);
}
