import { RDF_DIR_LANG_STRING, RDF_LANG_STRING } from './rdf-terms.ts';
import type { StatementBuilder } from './statement-builder.ts';

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const HASH = 0x23;
const DASH = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const LT = 0x3c;
const GT = 0x3e;
const AT = 0x40;
const BACKSLASH = 0x5c;
const CARET = 0x5e;
const UNDERSCORE = 0x5f;

/** ASCII characters an IRIREF holds unescaped: not U+0000-U+0020, `<>"{}|^\`` or backslash. */
export const IRI_CHAR = new Uint8Array(128);
/** ASCII letters and digits. */
const ALNUM = new Uint8Array(128);
/** The ECHAR escapes of a string literal, by the character after the backslash. */
const ECHAR: Readonly<Record<string, string>> = {
  t: '\t',
  b: '\b',
  n: '\n',
  r: '\r',
  f: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};
for (let c = 0x21; c < 128; c++) IRI_CHAR[c] = '<>"{}|^`\\'.includes(String.fromCharCode(c)) ? 0 : 1;
for (let c = 0; c < 128; c++) ALNUM[c] = /[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0;

/** Slots of the readers' caches of repeated IRIs (a power of two). */
export const IRI_SLOTS = 1024;

/**
 * Whether the `length` bytes at `a` (-1: none) are those at `b`, compared from the end, where
 * IRIs that share a namespace differ.
 */
export function sameBytes(bytes: Buffer, a: number, b: number, length: number): boolean {
  if (a < 0) return false;
  for (let i = length - 1; i >= 0; i--) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

/**
 * Thrown inside a fast reader (this one, turtle-reader.ts) when the text is not in the form it
 * reads; caught by the reader's `read`, which then hands the document to n3.
 */
export const UNSURE = new Error('not in the plain form');

/**
 * A reader for the plain form of N-Triples and N-Quads that nearly every published file is in:
 * one statement per line of absolute IRIs without escapes, ASCII blank-node labels, and string
 * literals with ECHAR/UCHAR escapes, language tags or datatype IRIs; comments and blank lines.
 * It is not the parser of record: n3 is (parse-line-formats.ts). On anything outside that form -
 * a syntax error, a relative IRI, an escape in an IRI, an RDF 1.2 term, a non-ASCII label, odd
 * whitespace - it stops and says so, and the document is read again by n3 from the start, so
 * that hostile input gets n3's statements and n3's error message exactly. Within that form it
 * gives what n3 gives with the lean factory: test/rdf/ntriples-reader.test.ts compares the two
 * on the W3C test suites and on mutated lines.
 */
class PlainLineReader {
  /** The document as UTF-8: scanned byte by byte (a typed array reads faster than a string). */
  private readonly bytes: Buffer;
  /** The same bytes one character per byte, from which ASCII terms are cut without decoding. */
  private readonly text: string;
  private readonly quads: boolean;
  private readonly blankPrefix: string;
  private readonly builder: StatementBuilder;
  private pos = 0;
  // a blank node is mostly an object on one line and the subject on the next; tags repeat
  private lastLabel = '';
  private lastBlank = '';
  private lastLanguage = '';
  // IRIs repeat (a subject line after line, predicates, datatypes): one string each, found by its
  // bytes without hashing, so that no copy is made only to be compared and dropped
  private readonly iriAt = new Int32Array(IRI_SLOTS).fill(-1);
  private readonly iriLength = new Int32Array(IRI_SLOTS);
  private readonly iriText: string[] = new Array(IRI_SLOTS).fill('');

  constructor(bytes: Buffer, quads: boolean, builder: StatementBuilder) {
    this.bytes = bytes;
    this.text = bytes.toString('latin1');
    this.quads = quads;
    this.blankPrefix = `_:${builder.labelPrefix}`;
    this.builder = builder;
  }

  /** Reads every line into the builder; false (with some statements added) when unsure. */
  read(): boolean {
    try {
      const end = this.bytes.length;
      while (this.pos < end) this.line();
      return true;
    } catch (error) {
      if (error === UNSURE) return false;
      throw error;
    }
  }

  private line(): void {
    const bytes = this.bytes;
    this.skipSpace();
    const c = bytes[this.pos];
    if (c !== LT && c !== UNDERSCORE) {
      this.endOfLine();
      return;
    }
    const subject = c === LT ? this.iri() : this.blank();
    if (bytes[this.pos] !== LT) throw UNSURE;
    const predicate = this.iri();
    const o = bytes[this.pos];
    if (o === QUOTE) this.literal(subject, predicate);
    else if (o === LT) this.builder.addTerms(subject, predicate, this.iri(), 'iri', '', '');
    else if (o === UNDERSCORE) this.builder.addTerms(subject, predicate, this.blank(), 'bnode', '', '');
    else throw UNSURE;
    this.skipSpace();
    if (this.quads) {
      const g = bytes[this.pos];
      // the publisher's graph name, kept beside ours (the document)
      if (g === LT) this.builder.inNamedGraph(this.iri());
      else if (g === UNDERSCORE) this.builder.inNamedGraph(this.blank());
    }
    if (bytes[this.pos] !== DOT) throw UNSURE;
    this.pos++;
    this.skipSpace();
    this.endOfLine();
  }

  /** A comment, LF, CR LF or the end of the text; a lone CR is a line end for n3, so unsure. */
  private endOfLine(): void {
    const bytes = this.bytes;
    let c = bytes[this.pos];
    if (c === HASH) {
      do c = bytes[++this.pos];
      while (c !== LF && c !== CR && this.pos < bytes.length);
    }
    if (c === CR && bytes[this.pos + 1] === LF) this.pos += 2;
    else if (c === LF) this.pos++;
    else if (this.pos < bytes.length) throw UNSURE;
  }

  private skipSpace(): void {
    const bytes = this.bytes;
    let c = bytes[this.pos];
    while (c === SPACE || c === TAB) c = bytes[++this.pos];
  }

  /** `<iri>` and the spaces after it: an absolute IRI (n3 resolves others) without escapes. */
  private iri(): string {
    const bytes = this.bytes;
    const start = this.pos + 1;
    let at = start;
    let c = bytes[at];
    // a scheme: a letter, then letters, digits, `+`, `-` or `.`, then `:`
    if ((c | 0x20) < 0x61 || (c | 0x20) > 0x7a) throw UNSURE;
    do c = bytes[++at];
    while (ALNUM[c] === 1 || c === 0x2b || c === DASH || c === DOT);
    if (c !== COLON) throw UNSURE;
    let wide = false;
    while (c !== GT) {
      if (c < 128) {
        if (IRI_CHAR[c] === 0) throw UNSURE;
      } else if (at >= bytes.length) throw UNSURE;
      else wide = true;
      c = bytes[++at];
    }
    this.pos = at + 1;
    this.skipSpace();
    const length = at - start;
    const slot = (length * 97 + bytes[at - 1] * 13 + bytes[at - 2]) & (IRI_SLOTS - 1);
    if (this.iriLength[slot] === length && sameBytes(bytes, this.iriAt[slot], start, length)) {
      return this.iriText[slot];
    }
    const iri = this.term(start, at, wide);
    this.iriAt[slot] = start;
    this.iriLength[slot] = length;
    this.iriText[slot] = iri;
    return iri;
  }

  /** The term from byte `start` to `end`; `wide` when it holds bytes >= 0x80, which are decoded. */
  private term(start: number, end: number, wide: boolean): string {
    return wide ? this.bytes.toString('utf8', start, end) : this.text.slice(start, end);
  }

  /**
   * `_:label` and the spaces after it, as the document's label. ASCII labels without dots only;
   * the label must end at a space, a tab or the statement's final dot, where n3 ends it too.
   */
  private blank(): string {
    const bytes = this.bytes;
    if (bytes[this.pos + 1] !== COLON) throw UNSURE;
    const start = this.pos + 2;
    let at = start;
    let c = bytes[at];
    if (c >= 128 || (ALNUM[c] !== 1 && c !== UNDERSCORE)) throw UNSURE;
    do c = bytes[++at];
    while (c < 128 && (ALNUM[c] === 1 || c === UNDERSCORE || c === DASH));
    if (c !== SPACE && c !== TAB && c !== DOT) throw UNSURE;
    this.pos = at;
    this.skipSpace();
    if (at - start !== this.lastLabel.length || !this.text.startsWith(this.lastLabel, start)) {
      this.lastLabel = this.text.slice(start, at);
      this.lastBlank = this.blankPrefix + this.lastLabel;
    }
    return this.lastBlank;
  }

  /** A string literal with its language tag or datatype, added as the statement's object. */
  private literal(subject: string, predicate: string): void {
    const bytes = this.bytes;
    const start = this.pos + 1;
    // `"""` is a long string, which N-Triples does not have
    if (bytes[start] === QUOTE && bytes[start + 1] === QUOTE) throw UNSURE;
    let at = start;
    let c = bytes[at];
    let escaped = false;
    let wide = false;
    while (c !== QUOTE) {
      if (c === BACKSLASH) {
        escaped = true;
        at++;
      } else if (c >= 128) wide = true;
      else if (c === LF || c === CR || at >= bytes.length) throw UNSURE;
      c = bytes[++at];
    }
    const raw = this.term(start, at, wide);
    const value = escaped ? unescapeString(raw) : raw;
    c = bytes[++at];
    let language = '';
    let datatype = '';
    if (c === AT) {
      const tagStart = at + 1;
      let subtag = tagStart;
      do c = bytes[++at];
      while ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
      for (;;) {
        // n3 refuses a subtag longer than 8 characters
        if (at === subtag || at - subtag > 8) throw UNSURE;
        if (c !== DASH) break;
        subtag = at + 1;
        do c = bytes[++at];
        while (c < 128 && ALNUM[c] === 1);
      }
      // `--ltr` (a direction) or anything glued to the tag: unsure
      if (c !== SPACE && c !== TAB && c !== DOT && c !== LT) throw UNSURE;
      if (at - tagStart !== this.lastLanguage.length || !this.text.startsWith(this.lastLanguage, tagStart)) {
        this.lastLanguage = this.text.slice(tagStart, at);
      }
      language = this.lastLanguage;
      // n3 reads `@version` after a literal as a keyword
      if (language === 'version') throw UNSURE;
      this.pos = at;
    } else if (c === CARET) {
      if (bytes[at + 1] !== CARET || bytes[at + 2] !== LT) throw UNSURE;
      this.pos = at + 2;
      datatype = this.iri();
      // n3 refuses these with a syntax error
      if (datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) throw UNSURE;
    } else this.pos = at;
    this.builder.addTerms(subject, predicate, value, 'literal', language, datatype);
  }
}

/** The string with its ECHAR and UCHAR escapes replaced; unsure on any other or invalid escape. */
export function unescapeString(raw: string): string {
  // pieces joined once give one flat string; `+=` gave a tree of them that the statement kept
  const out: string[] = [];
  let from = 0;
  let at = raw.indexOf('\\');
  while (at >= 0) {
    const e = raw[at + 1];
    let replacement = ECHAR[e];
    let next = at + 2;
    if (replacement === undefined) {
      if (e !== 'u' && e !== 'U') throw UNSURE;
      next += e === 'u' ? 4 : 8;
      const hex = raw.slice(at + 2, next);
      if (hex.length !== next - at - 2 || !/^[0-9A-Fa-f]+$/.test(hex)) throw UNSURE;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw UNSURE;
      replacement = String.fromCodePoint(code);
    }
    out.push(raw.slice(from, at), replacement);
    from = next;
    at = raw.indexOf('\\', from);
  }
  out.push(raw.slice(from));
  return out.join('');
}

/**
 * Reads a whole N-Triples (`quads` false) or N-Quads document in the plain form into the builder,
 * from its bytes in UTF-8 (without a byte-order mark); every delimiter is ASCII, so each term is a
 * whole run of UTF-8 characters. False when some line is not in that form; the builder then holds
 * a prefix of the statements.
 */
export function readPlainLines(utf8: Buffer, quads: boolean, builder: StatementBuilder): boolean {
  return new PlainLineReader(utf8, quads, builder).read();
}
