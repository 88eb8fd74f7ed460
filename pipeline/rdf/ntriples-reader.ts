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
const IRI_CHAR = new Uint8Array(128);
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

/** Thrown inside the reader when a line is not in the plain form it reads; caught by `read`. */
const UNSURE = new Error('not plain N-Triples');

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
  private readonly text: string;
  /** When set, `text` is these bytes one character per byte, and a term with bytes >= 0x80 is decoded from them. */
  private readonly utf8: Buffer | null;
  private readonly quads: boolean;
  private readonly blankPrefix: string;
  private readonly builder: StatementBuilder;
  private pos = 0;
  // a blank node is mostly an object on one line and the subject on the next; tags repeat
  private lastLabel = '';
  private lastBlank = '';
  private lastLanguage = '';

  constructor(text: string, utf8: Buffer | null, quads: boolean, builder: StatementBuilder) {
    this.text = text;
    this.utf8 = utf8;
    this.quads = quads;
    this.blankPrefix = `_:${builder.labelPrefix}`;
    this.builder = builder;
  }

  /** Reads every line into the builder; false (with some statements added) when unsure. */
  read(): boolean {
    try {
      const end = this.text.length;
      while (this.pos < end) this.line();
      return true;
    } catch (error) {
      if (error === UNSURE) return false;
      throw error;
    }
  }

  private line(): void {
    const text = this.text;
    this.skipSpace();
    const c = text.charCodeAt(this.pos);
    if (c !== LT && c !== UNDERSCORE) {
      this.endOfLine();
      return;
    }
    const subject = c === LT ? this.iri() : this.blank();
    if (text.charCodeAt(this.pos) !== LT) throw UNSURE;
    const predicate = this.iri();
    const o = text.charCodeAt(this.pos);
    if (o === QUOTE) this.literal(subject, predicate);
    else if (o === LT) this.builder.addTerms(subject, predicate, this.iri(), 'iri', '', '');
    else if (o === UNDERSCORE) this.builder.addTerms(subject, predicate, this.blank(), 'bnode', '', '');
    else throw UNSURE;
    this.skipSpace();
    if (this.quads) {
      const g = text.charCodeAt(this.pos);
      // the graph name is dropped (the graph is the document), but must be well formed
      if (g === LT) this.iri();
      else if (g === UNDERSCORE) this.blank();
    }
    if (text.charCodeAt(this.pos) !== DOT) throw UNSURE;
    this.pos++;
    this.skipSpace();
    this.endOfLine();
  }

  /** A comment, LF, CR LF or the end of the text; a lone CR is a line end for n3, so unsure. */
  private endOfLine(): void {
    const text = this.text;
    let c = text.charCodeAt(this.pos);
    if (c === HASH) {
      do c = text.charCodeAt(++this.pos);
      while (c !== LF && c !== CR && this.pos < text.length);
    }
    if (c === CR && text.charCodeAt(this.pos + 1) === LF) this.pos += 2;
    else if (c === LF) this.pos++;
    else if (this.pos < text.length) throw UNSURE;
  }

  private skipSpace(): void {
    const text = this.text;
    let c = text.charCodeAt(this.pos);
    while (c === SPACE || c === TAB) c = text.charCodeAt(++this.pos);
  }

  /** `<iri>` and the spaces after it: an absolute IRI (n3 resolves others) without escapes. */
  private iri(): string {
    const text = this.text;
    const start = this.pos + 1;
    let at = start;
    let c = text.charCodeAt(at);
    // a scheme: a letter, then letters, digits, `+`, `-` or `.`, then `:`
    if ((c | 0x20) < 0x61 || (c | 0x20) > 0x7a) throw UNSURE;
    do c = text.charCodeAt(++at);
    while (ALNUM[c] === 1 || c === 0x2b || c === DASH || c === DOT);
    if (c !== COLON) throw UNSURE;
    let wide = false;
    while (c !== GT) {
      if (c < 128) {
        if (IRI_CHAR[c] === 0) throw UNSURE;
      } else if (at >= text.length) throw UNSURE;
      else wide = true;
      c = text.charCodeAt(++at);
    }
    this.pos = at + 1;
    this.skipSpace();
    return this.term(start, at, wide);
  }

  /** The text from `start` to `end`; `wide` when it holds characters (or bytes) >= 0x80. */
  private term(start: number, end: number, wide: boolean): string {
    return wide && this.utf8 !== null ? this.utf8.toString('utf8', start, end) : this.text.slice(start, end);
  }

  /**
   * `_:label` and the spaces after it, as the document's label. ASCII labels without dots only;
   * the label must end at a space, a tab or the statement's final dot, where n3 ends it too.
   */
  private blank(): string {
    const text = this.text;
    if (text.charCodeAt(this.pos + 1) !== COLON) throw UNSURE;
    const start = this.pos + 2;
    let at = start;
    let c = text.charCodeAt(at);
    if (c >= 128 || (ALNUM[c] !== 1 && c !== UNDERSCORE)) throw UNSURE;
    do c = text.charCodeAt(++at);
    while (c < 128 && (ALNUM[c] === 1 || c === UNDERSCORE || c === DASH));
    if (c !== SPACE && c !== TAB && c !== DOT) throw UNSURE;
    this.pos = at;
    this.skipSpace();
    if (at - start !== this.lastLabel.length || !text.startsWith(this.lastLabel, start)) {
      this.lastLabel = text.slice(start, at);
      this.lastBlank = this.blankPrefix + this.lastLabel;
    }
    return this.lastBlank;
  }

  /** A string literal with its language tag or datatype, added as the statement's object. */
  private literal(subject: string, predicate: string): void {
    const text = this.text;
    const start = this.pos + 1;
    // `"""` is a long string, which N-Triples does not have
    if (text.charCodeAt(start) === QUOTE && text.charCodeAt(start + 1) === QUOTE) throw UNSURE;
    let at = start;
    let c = text.charCodeAt(at);
    let escaped = false;
    let wide = false;
    while (c !== QUOTE) {
      if (c === BACKSLASH) {
        escaped = true;
        at++;
      } else if (c >= 128) wide = true;
      else if (c === LF || c === CR || at >= text.length) throw UNSURE;
      c = text.charCodeAt(++at);
    }
    const raw = this.term(start, at, wide);
    const value = escaped ? unescapeString(raw) : raw;
    c = text.charCodeAt(++at);
    let language = '';
    let datatype = '';
    if (c === AT) {
      const tagStart = at + 1;
      let subtag = tagStart;
      do c = text.charCodeAt(++at);
      while ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
      for (;;) {
        // n3 refuses a subtag longer than 8 characters
        if (at === subtag || at - subtag > 8) throw UNSURE;
        if (c !== DASH) break;
        subtag = at + 1;
        do c = text.charCodeAt(++at);
        while (c < 128 && ALNUM[c] === 1);
      }
      // `--ltr` (a direction) or anything glued to the tag: unsure
      if (c !== SPACE && c !== TAB && c !== DOT && c !== LT) throw UNSURE;
      if (at - tagStart !== this.lastLanguage.length || !text.startsWith(this.lastLanguage, tagStart)) {
        this.lastLanguage = text.slice(tagStart, at);
      }
      language = this.lastLanguage;
      // n3 reads `@version` after a literal as a keyword
      if (language === 'version') throw UNSURE;
      this.pos = at;
    } else if (c === CARET) {
      if (text.charCodeAt(at + 1) !== CARET || text.charCodeAt(at + 2) !== LT) throw UNSURE;
      this.pos = at + 2;
      datatype = this.iri();
      // n3 refuses these with a syntax error
      if (datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) throw UNSURE;
    } else this.pos = at;
    this.builder.addTerms(subject, predicate, value, 'literal', language, datatype);
  }
}

/** The string with its ECHAR and UCHAR escapes replaced; unsure on any other or invalid escape. */
function unescapeString(raw: string): string {
  let out = '';
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
    out += raw.slice(from, at) + replacement;
    from = next;
    at = raw.indexOf('\\', from);
  }
  return out + raw.slice(from);
}

/**
 * Reads a whole N-Triples (`quads` false) or N-Quads text in the plain form into the builder.
 * False when some line is not in that form; the builder then holds a prefix of the statements.
 */
export function readPlainLines(text: string, quads: boolean, builder: StatementBuilder): boolean {
  return new PlainLineReader(text, null, quads, builder).read();
}

/**
 * readPlainLines on a body of valid UTF-8 (after any byte-order mark), read without decoding it
 * whole: the scan runs over the bytes as one-byte characters, which V8 stores and compares at
 * half the size of a decoded text with any non-ASCII in it, and only terms with non-ASCII bytes
 * are decoded. Every delimiter is ASCII, so each term is a whole run of UTF-8 characters.
 */
export function readPlainUtf8(utf8: Buffer, quads: boolean, builder: StatementBuilder): boolean {
  return new PlainLineReader(utf8.toString('latin1'), utf8, quads, builder).read();
}
