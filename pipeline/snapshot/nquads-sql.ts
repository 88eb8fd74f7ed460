/**
 * serializeNQuads (pipeline/rdf/nquads-writer.ts) as DuckDB SQL, so that DuckDB builds the lines of
 * data.nq.gz itself instead of handing every term to JavaScript. The output is a fixed contract:
 * test/snapshot/nquads-sql.test.ts compares it with serializeNQuads on hostile strings. Lone
 * surrogates, which serializeNQuads turns into U+FFFD, cannot reach DuckDB: its strings are UTF-8,
 * and staging already stored U+FFFD for them.
 */

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

/** A SQL string literal holding one character, by code point (chr avoids raw control bytes in SQL). */
const chr = (code: number) => `chr(${code})`;
const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, '0');

/** Nested replace() calls, first pair innermost (applied first). */
function replaceChain(value: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.reduce((inner, [from, to]) => `replace(${inner}, ${from}, ${to})`, value);
}

/** Code points of the characters escapeIri percent-encodes: U+0000-U+0020 and <>"{}|^`\ */
const IRI_UNSAFE = [
  ...Array.from({ length: 0x21 }, (_, i) => i),
  ...[...'<>"{}|^`\\'].map((c) => c.charCodeAt(0)),
];

/**
 * The common-case tests: the whole value is characters that need no escape, as RE2 patterns (SQL
 * strings take backslashes literally). A full match of the negated class takes half the CPU of
 * searching for one character of the class (regexp_matches): 1.1 against 2.3 s over four columns of
 * 4.5 million real statements.
 */
const IRI_PLAIN = `'[^\\x00-\\x20<>"{}|^\`\\\\]*'`;
const LITERAL_PLAIN = `'[^"\\\\\\x00-\\x1f\\x7f]*'`;

const ECHAR: Readonly<Record<number, string>> = { 10: 'n', 13: 'r', 9: 't', 8: 'b', 12: 'f' };

/** escapeIri as SQL over the expression `value`: percent-encodes the characters an IRIREF cannot hold. */
export function escapeIriSql(value: string): string {
  const chain = replaceChain(
    value,
    IRI_UNSAFE.map((code) => [chr(code), `'%${hex(code, 2)}'`] as const),
  );
  return `(CASE WHEN regexp_full_match(${value}, ${IRI_PLAIN}) THEN ${value} ELSE ${chain} END)`;
}

/**
 * escapeLiteral as SQL: backslash first (the escapes after it bring their own backslashes), then the
 * quote, then control characters as ECHAR or \uXXXX.
 */
export function escapeLiteralSql(value: string): string {
  const controls = [...Array.from({ length: 0x20 }, (_, i) => i), 0x7f];
  const chain = replaceChain(value, [
    [chr(0x5c), `'\\\\'`],
    [chr(0x22), `'\\"'`],
    ...controls.map((code) => [chr(code), `'\\${ECHAR[code] ?? `u${hex(code, 4)}`}'`] as const),
  ]);
  return `(CASE WHEN regexp_full_match(${value}, ${LITERAL_PLAIN}) THEN ${value} ELSE ${chain} END)`;
}

/**
 * One concat() call over the pieces: `a || b || c` builds every intermediate string (data.nq.gz of
 * 17.5 million statements: 28.3 s of CPU against 25.6 s). Every piece here is non-NULL, so concat's
 * skipping of NULLs changes nothing.
 */
const cat = (...pieces: string[]) => `concat(${pieces.join(', ')})`;

/**
 * SQL for one N-Quads 1.2 line without its final newline, from the quads columns graph, subject,
 * predicate, object, object_kind, datatype, lang and direction: the line serializeNQuads writes for
 * it. A triple term is written as the object column holds it; source_graph is not written (the
 * graph is the document).
 */
export function nquadsLineSql(): string {
  const subject = `CASE WHEN starts_with(subject, '_') THEN subject ELSE ${cat(`'<'`, escapeIriSql('subject'), `'>'`)} END`;
  // concat skips the NULL of `'--' || direction` when there is no direction
  const suffix = `CASE WHEN lang IS NOT NULL THEN ${cat(`'@'`, 'lang', `'--' || direction`)}
      WHEN datatype IS NULL OR datatype = '${XSD_STRING}' THEN ''
      ELSE ${cat(`'^^<'`, escapeIriSql('datatype'), `'>'`)} END`;
  const object = `CASE object_kind WHEN 'iri' THEN ${cat(`'<'`, escapeIriSql('object'), `'>'`)}
      WHEN 'bnode' THEN object WHEN 'triple' THEN object
      ELSE ${cat(`'"'`, escapeLiteralSql('object'), `'"'`, suffix)} END`;
  return cat(
    subject,
    `' <'`,
    escapeIriSql('predicate'),
    `'> '`,
    object,
    `' <'`,
    escapeIriSql('graph'),
    `'> .'`,
  );
}
