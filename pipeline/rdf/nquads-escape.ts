/**
 * Exact N-Quads escaping (RDF 1.1/1.2 N-Quads grammar). In an IRIREF the characters U+0000-U+0020,
 * `<>"{}|^\`` and backslash cannot appear. The grammar allows them as \uXXXX, but the IRI after
 * unescaping must still be an IRI (RFC 3987), which none of them may be part of: serd rejects
 * `\u0020`, raptor `\u0020`, `\u003C` and `\u003E`. So they are percent-encoded (`%20`), which
 * is what a lenient parser's broken IRI means anyway (WHATWG URL does the same). In a string literal
 * `"`, backslash, LF and CR must be escaped and, as in canonical N-Triples, the other control
 * characters are escaped too (\b \t \f as ECHAR, the rest as \uXXXX) so that a line never holds a
 * raw control character. Lone surrogates, which no UTF-8 output can carry, become U+FFFD.
 * Both functions test for the rare case first and return the input unchanged otherwise.
 */
/** One test for both rare cases: a character to escape, or a surrogate (possibly unpaired). */
const IRI_RARE = /[\x00-\x20<>"{}|^`\\\ud800-\udfff]/;
const IRI_UNSAFE_ALL = /[\x00-\x20<>"{}|^`\\]/g;
const LITERAL_RARE = /["\\\x00-\x1f\x7f\ud800-\udfff]/;
const LITERAL_UNSAFE_ALL = /["\\\x00-\x1f\x7f]/g;
const ECHAR: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function percent(c: string): string {
  return `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

function uchar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The IRI as the inside of an N-Quads IRIREF (between `<` and `>`). */
export function escapeIri(iri: string): string {
  if (!IRI_RARE.test(iri)) return iri;
  return iri.toWellFormed().replace(IRI_UNSAFE_ALL, percent);
}

/** The lexical form as the inside of an N-Quads string literal (between the quotes). */
export function escapeLiteral(value: string): string {
  if (!LITERAL_RARE.test(value)) return value;
  return value.toWellFormed().replace(LITERAL_UNSAFE_ALL, (c) => ECHAR[c] ?? uchar(c));
}
