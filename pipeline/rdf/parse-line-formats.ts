import { isUtf8 } from 'node:buffer';
import { readPlainLines } from './ntriples-reader.ts';
import { n3FamilyParser } from './parse-n3-family.ts';
import type { SyntaxParser } from './syntax-parser.ts';

/**
 * The adapter for N-Triples or N-Quads: the plain-form reader (ntriples-reader.ts) first, several
 * times faster than n3 on the files the Web serves; when it is unsure of a line, its statements
 * are dropped and n3 reads the document from the start, so that what n3 accepts, refuses and
 * reports is the contract.
 */
export function lineFormatParser(format: 'N-Triples' | 'N-Quads'): SyntaxParser {
  const full = n3FamilyParser(format);
  const quads = format === 'N-Quads';
  return async (input) => {
    const { body, encoding, builder } = input;
    // a view of the body's bytes, not a copy; a body in another encoding is read as its text in UTF-8
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength).subarray(encoding.offset);
    const utf8 = encoding.encoding === 'utf-8' && isUtf8(bytes) ? bytes : Buffer.from(input.text);
    if (readPlainLines(utf8, quads, builder)) return null;
    builder.discard();
    return full(input);
  };
}
