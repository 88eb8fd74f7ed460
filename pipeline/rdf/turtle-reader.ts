import { Parser } from 'n3';
import { IRI_CHAR, sameBytes, UNSURE, unescapeString } from './ntriples-reader.ts';
import { RDF_DIR_LANG_STRING, RDF_LANG_STRING } from './rdf-terms.ts';
import type { StatementBuilder } from './statement-builder.ts';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDF_TYPE = `${RDF}type`;
const RDF_FIRST = `${RDF}first`;
const RDF_REST = `${RDF}rest`;
const RDF_NIL = `${RDF}nil`;
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const XSD_INTEGER = `${XSD}integer`;
const XSD_DECIMAL = `${XSD}decimal`;
const XSD_DOUBLE = `${XSD}double`;
const XSD_BOOLEAN = `${XSD}boolean`;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const HASH = 0x23;
const PERCENT = 0x25;
const APOSTROPHE = 0x27;
const OPEN = 0x28;
const CLOSE = 0x29;
const PLUS = 0x2b;
const COMMA = 0x2c;
const DASH = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const LT = 0x3c;
const GT = 0x3e;
const AT = 0x40;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const CARET = 0x5e;
const UNDERSCORE = 0x5f;

/** Nesting of `[` and `(` the reader follows; deeper documents go to n3, which keeps no call stack. */
const MAX_DEPTH = 64;
/** Slots of the prefixed-name cache (a power of two). */
const NAME_SLOTS = 1024;

/** ASCII sets by byte, 1 for members. */
const table = (test: (c: string) => boolean): Uint8Array => {
  const set = new Uint8Array(128);
  for (let c = 0; c < 128; c++) set[c] = test(String.fromCharCode(c)) ? 1 : 0;
  return set;
};
const LETTER = table((c) => /[A-Za-z]/.test(c));
const DIGIT = table((c) => /[0-9]/.test(c));
/** PN_CHARS, ASCII part: what continues a prefix or a blank-node label. */
const NAME_CHAR = table((c) => /[A-Za-z0-9_-]/.test(c));
/** What starts a blank-node label (ASCII). */
const LABEL_START = table((c) => /[A-Za-z0-9_]/.test(c));
/** What starts a local name, and what continues one (ASCII; `%xx` and escapes apart). */
const LOCAL_START = table((c) => /[A-Za-z0-9_:]/.test(c));
const LOCAL_CHAR = table((c) => /[A-Za-z0-9_:-]/.test(c));
/** PN_LOCAL_ESC: the characters a backslash escapes in a local name. */
const LOCAL_ESCAPE = table((c) => "_~.-!$&'()*+,;=/?#@%".includes(c));
const HEX = table((c) => /[0-9A-Fa-f]/.test(c));
/**
 * What may follow a name, a blank-node label, a number or a boolean (after at most one dot) for
 * this reader to take the token as n3 does: a subset of each of n3's lexer lookaheads for them.
 */
const AFTER_TOKEN = table((c) => ' \t\n\r,;#()[]"\'<'.includes(c));
/** What may follow `a` for n3 to read it as rdf:type (a subset of its lexer's lookahead). */
const AFTER_A = table((c) => ' \t\n\r#([<"\''.includes(c));
/** What may follow a language tag (n3 ends a tag at any other character than a letter or digit). */
const AFTER_TAG = table((c) => ' \t\n\r,;.#)]'.includes(c));
const WHITESPACE = table((c) => ' \t\n\r'.includes(c));
const SCHEME_CHAR = table((c) => /[A-Za-z0-9+.-]/.test(c));

/** Whether a code point below U+10000 is in PN_CHARS_BASE, as n3's lexer tests it. */
function isBaseChar(code: number): boolean {
  return (
    (code >= 0xc0 &&
      code <= 0x1fff &&
      code !== 0xd7 &&
      code !== 0xf7 &&
      (code < 0x300 || (code >= 0x370 && code !== 0x37e))) ||
    (code >= 0x200c && code <= 0x200d) ||
    (code >= 0x2070 && code <= 0x218f) ||
    (code >= 0x2c00 && code <= 0x2fef) ||
    (code >= 0x3001 && code <= 0xd7ff) ||
    (code >= 0xf900 && code <= 0xfdcf) ||
    (code >= 0xfdf0 && code <= 0xfffd)
  );
}

/** The parts of n3's parser (2.13, pinned) that resolve IRIs, used so that resolution is n3's own. */
interface N3Resolver {
  _resolveIRI(iri: string): string | null;
  _setBase(iri: string): void;
}

/**
 * A reader for the Turtle that the Web of Data publishes: @prefix/@base and PREFIX/BASE, IRIs
 * (relative ones resolved by n3's own code), prefixed names with `%xx` and backslash escapes,
 * `a`, `;` and `,` lists, blank-node labels, `[ … ]` property lists, collections, string literals
 * in the four quote forms with ECHAR/UCHAR escapes, language tags, datatypes, numbers, booleans
 * and comments. It is not the parser of record: n3 is
 * (parse-line-formats.ts). On anything else - a syntax error, RDF 1.2 syntax,
 * an escape in an IRI, a token n3 might split differently, nesting deeper than MAX_DEPTH - it
 * stops and says so, and n3 reads the document from the start, so that what n3 accepts, refuses
 * and reports is the contract. Within that form it gives what n3 gives with the lean factory,
 * statement for statement and in n3's order (N-Quads output keeps it): the same anonymous blank
 * nodes (`<labelPrefix>-<n>`, numbered as n3 creates them) and the same triples of collections.
 * test/rdf/turtle-reader.test.ts compares the two.
 */
class TurtleReader {
  /** The document as UTF-8, scanned byte by byte. */
  private readonly bytes: Buffer;
  /** The same bytes one character per byte, from which ASCII terms are cut without decoding. */
  private readonly text: string;
  private readonly end: number;
  private readonly builder: StatementBuilder;
  private readonly labelPrefix: string;
  private readonly baseIri: string;
  private resolver: N3Resolver | null = null;
  private readonly prefixes = new Map<string, string>();
  // prefixed names read before, by a hash of their bytes: where one was written (-1: none), its
  // length and its IRI; and the namespace of the prefix read last, with where it was written
  private readonly nameAt = new Int32Array(NAME_SLOTS).fill(-1);
  private readonly nameLength = new Int32Array(NAME_SLOTS);
  private readonly nameIri: string[] = new Array(NAME_SLOTS).fill('');
  private prefixAt = -1;
  private prefixLength = 0;
  private namespace = '';
  private pos = 0;
  private depth = 0;
  /** Whether the last `[ … ]` read was empty. */
  private emptyNode = false;
  /** The head of the last collection read (rdf:nil when empty). */
  private listHead = RDF_NIL;
  private blanks = 0;
  // a term's kind, language tag and datatype, set by `term`
  private kind: 'iri' | 'bnode' | 'literal' = 'iri';
  private language = '';
  private datatype = '';
  // a label is mostly an object in one statement and the subject of the next (its bytes one
  // character per byte, then the label); tags repeat
  private lastLabel = '';
  private lastBlank = '';
  private lastLanguage = '';

  constructor(bytes: Buffer, baseIri: string, builder: StatementBuilder) {
    this.bytes = bytes;
    this.text = bytes.toString('latin1');
    this.end = bytes.length;
    this.baseIri = baseIri;
    this.builder = builder;
    this.labelPrefix = `_:${builder.labelPrefix}`;
  }

  /** Reads every statement into the builder; false (with some statements added) when unsure. */
  read(): boolean {
    try {
      for (;;) {
        this.skip();
        if (this.pos >= this.end) return true;
        this.statement();
      }
    } catch (error) {
      if (error === UNSURE) return false;
      throw error;
    }
  }

  /** Skips spaces, tabs, line ends and comments: what n3 skips between tokens. */
  private skip(): void {
    const bytes = this.bytes;
    let c = bytes[this.pos];
    for (;;) {
      if (c === SPACE || c === TAB || c === LF || c === CR) c = bytes[++this.pos];
      else if (c === HASH) {
        do c = bytes[++this.pos];
        while (c !== LF && c !== CR && this.pos < this.end);
      } else return;
    }
  }

  private statement(): void {
    const c = this.bytes[this.pos];
    if (c === AT) {
      if (this.word('@prefix')) this.prefix(true);
      else if (this.word('@base')) this.base(true);
      else throw UNSURE;
    } else if ((c | 0x20) === 0x70 && this.word('prefix', true)) this.prefix(false);
    else if ((c | 0x20) === 0x62 && this.word('base', true)) this.base(false);
    else this.triples();
  }

  /** Whether the text continues with `keyword` and whitespace; consumes the keyword if so. */
  private word(keyword: string, anyCase = false): boolean {
    const end = this.pos + keyword.length;
    const found = this.text.slice(this.pos, end);
    if ((anyCase ? found.toLowerCase() : found) !== keyword || WHITESPACE[this.bytes[end]] !== 1)
      return false;
    this.pos = end;
    return true;
  }

  /** A prefix declaration after its keyword; `dotted` for `@prefix`, which ends with a dot. */
  private prefix(dotted: boolean): void {
    const bytes = this.bytes;
    this.skip();
    const start = this.pos;
    const colon = this.prefixEnd(start);
    const after = bytes[colon + 1];
    if (bytes[colon] !== COLON || (WHITESPACE[after] !== 1 && after !== LT && after !== HASH)) throw UNSURE;
    this.pos = colon + 1;
    this.skip();
    if (bytes[this.pos] !== LT) throw UNSURE;
    this.prefixes.set(this.decode(start, colon), this.iri());
    this.nameAt.fill(-1);
    this.prefixAt = -1;
    if (dotted) this.dot();
  }

  /** A base declaration after its keyword; `dotted` for `@base`. */
  private base(dotted: boolean): void {
    this.skip();
    if (this.bytes[this.pos] !== LT) throw UNSURE;
    const iri = this.iri();
    if (!iri) throw UNSURE;
    this.resolve()._setBase(iri);
    if (dotted) this.dot();
  }

  /** n3's parser, for its IRI resolution against the current base, made on first use. */
  private resolve(): N3Resolver {
    this.resolver ??= new Parser({ baseIRI: this.baseIri, format: 'Turtle' }) as unknown as N3Resolver;
    return this.resolver;
  }

  /** The end of a PN_PREFIX starting at `at`: `at` itself when there is none. */
  private prefixEnd(at: number): number {
    const bytes = this.bytes;
    const start = at;
    const first = this.nameChar(at, LETTER, false);
    if (first === 0) return at;
    at += first;
    for (;;) {
      const c = bytes[at];
      // most names are ASCII: no call for those
      let length = c < 0x80 ? NAME_CHAR[c] : this.nameChar(at, NAME_CHAR, true);
      if (length === 0 && c === DOT) {
        length = this.nameChar(at + 1, NAME_CHAR, true);
        if (length !== 0) length++;
      }
      if (length === 0) break;
      at += length;
    }
    // n3's lexer reads `true.` and `false.` as a boolean and a dot, whatever follows
    const initial = bytes[start];
    if (
      (initial === 0x74 || initial === 0x66) &&
      /^(?:true|false)\./.test(this.text.slice(start, start + 6))
    ) {
      throw UNSURE;
    }
    return at;
  }

  /** The `.` that ends a statement; n3 reads a dot before a digit as a number. */
  private dot(): void {
    this.skip();
    if (this.bytes[this.pos] !== DOT || DIGIT[this.bytes[this.pos + 1]] === 1) throw UNSURE;
    this.pos++;
  }

  private triples(): void {
    const bytes = this.bytes;
    const c = bytes[this.pos];
    if (c === OPEN_BRACKET) {
      const subject = this.newBlank();
      this.propertyList(subject);
      this.skip();
      // `[ :p :o ] .` is a statement of its own, `[] .` is not
      if (bytes[this.pos] !== DOT || this.emptyNode) this.predicateObjectList(subject);
    } else if (c === OPEN) {
      this.pos++;
      this.predicateObjectList(this.collection());
    } else {
      let subject: string;
      if (c === LT) subject = this.iri();
      else if (c === UNDERSCORE) subject = this.label();
      else subject = this.name();
      this.predicateObjectList(subject);
    }
    this.dot();
  }

  /** `[ … ]` at the `[`, with `node` (made before what is inside, as n3 makes it) as subject. */
  private propertyList(node: string): void {
    this.pos++;
    this.skip();
    const empty = this.bytes[this.pos] === CLOSE_BRACKET;
    if (!empty) {
      this.enter();
      this.predicateObjectList(node);
      this.skip();
      if (this.bytes[this.pos] !== CLOSE_BRACKET) throw UNSURE;
      this.depth--;
    }
    this.pos++;
    this.emptyNode = empty;
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw UNSURE;
  }

  private newBlank(): string {
    // one flat string (see name())
    return [this.labelPrefix, '-', this.blanks++].join('');
  }

  /** Predicates and objects of `subject` up to the `.` or `]` after them (left unread). */
  private predicateObjectList(subject: string): void {
    const bytes = this.bytes;
    this.skip();
    for (;;) {
      const predicate = this.verb();
      for (;;) {
        this.skip();
        this.object(subject, predicate);
        this.skip();
        if (bytes[this.pos] !== COMMA) break;
        this.pos++;
      }
      if (bytes[this.pos] !== SEMICOLON) return;
      do {
        this.pos++;
        this.skip();
      } while (bytes[this.pos] === SEMICOLON);
      const c = bytes[this.pos];
      if (c === DOT || c === CLOSE_BRACKET) return;
    }
  }

  private verb(): string {
    const c = this.bytes[this.pos];
    if (c === LT) return this.iri();
    if (c === 0x61 && AFTER_A[this.bytes[this.pos + 1]] === 1) {
      this.pos++;
      return RDF_TYPE;
    }
    return this.name();
  }

  /** An object of `subject` and `predicate`, added with the statements inside it, in n3's order. */
  private object(subject: string, predicate: string): void {
    const c = this.bytes[this.pos];
    if (c === OPEN_BRACKET) {
      const node = this.newBlank();
      this.propertyList(node);
      this.builder.addTerms(subject, predicate, node, 'bnode', '', '');
    } else if (c === OPEN) {
      this.pos++;
      const head = this.collection();
      this.builder.addTerms(subject, predicate, head, head === RDF_NIL ? 'iri' : 'bnode', '', '');
    } else {
      const object = this.term();
      this.builder.addTerms(subject, predicate, object, this.kind, this.language, this.datatype);
    }
  }

  /**
   * A collection after its `(`: its head (rdf:nil when empty, else a new blank node), with every
   * rdf:first and rdf:rest statement added, the last `rest nil` included.
   */
  private collection(): string {
    const last = this.items();
    if (last !== '') this.builder.addTerms(last, RDF_REST, RDF_NIL, 'iri', '', '');
    return this.listHead;
  }

  /**
   * The items of a collection up to and with its `)`, each added as n3 adds them: the cell's
   * blank node made after the item (before it for `[` and `(`), `previous rest cell`, then
   * `cell first item`. Returns the last cell ('' when empty), whose `rest nil` the caller adds:
   * n3 adds a nested collection's `cell first head` before that collection's last `rest nil`.
   */
  private items(): string {
    const bytes = this.bytes;
    const builder = this.builder;
    this.enter();
    let head = RDF_NIL;
    let previous = '';
    for (;;) {
      this.skip();
      const c = bytes[this.pos];
      if (c === CLOSE) break;
      let cell: string;
      if (c === OPEN_BRACKET) {
        cell = this.newBlank();
        const node = this.newBlank();
        if (previous) builder.addTerms(previous, RDF_REST, cell, 'bnode', '', '');
        builder.addTerms(cell, RDF_FIRST, node, 'bnode', '', '');
        this.propertyList(node);
      } else if (c === OPEN) {
        cell = this.newBlank();
        if (previous) builder.addTerms(previous, RDF_REST, cell, 'bnode', '', '');
        this.pos++;
        const last = this.items();
        const inner = this.listHead;
        builder.addTerms(cell, RDF_FIRST, inner, inner === RDF_NIL ? 'iri' : 'bnode', '', '');
        if (last !== '') builder.addTerms(last, RDF_REST, RDF_NIL, 'iri', '', '');
      } else {
        const item = this.term();
        cell = this.newBlank();
        if (previous) builder.addTerms(previous, RDF_REST, cell, 'bnode', '', '');
        builder.addTerms(cell, RDF_FIRST, item, this.kind, this.language, this.datatype);
      }
      if (!previous) head = cell;
      previous = cell;
    }
    this.pos++;
    this.depth--;
    this.listHead = head;
    return previous;
  }

  /**
   * A single-token term: IRI, prefixed name, blank-node label, string literal with its tag or
   * datatype, number or boolean; sets `kind`, `language` and `datatype`.
   */
  private term(): string {
    const bytes = this.bytes;
    const c = bytes[this.pos];
    this.language = '';
    this.datatype = '';
    if (c === LT) {
      this.kind = 'iri';
      return this.iri();
    }
    if (c === UNDERSCORE) {
      this.kind = 'bnode';
      return this.label();
    }
    if (c === QUOTE || c === APOSTROPHE) {
      this.kind = 'literal';
      return this.literal(c);
    }
    if (DIGIT[c] === 1 || c === PLUS || c === DASH || c === DOT) {
      this.kind = 'literal';
      return this.number();
    }
    if (c === 0x74 || c === 0x66) {
      const word = c === 0x74 ? 'true' : 'false';
      const after = bytes[this.pos + word.length];
      // n3's lexer takes the word as a boolean before any of these
      if (this.text.startsWith(word, this.pos) && (AFTER_TOKEN[after] === 1 || after === DOT)) {
        this.check(this.pos + word.length);
        this.pos += word.length;
        this.kind = 'literal';
        this.datatype = XSD_BOOLEAN;
        return word;
      }
    }
    this.kind = 'iri';
    return this.name();
  }

  /**
   * Unsure unless the token ending before `at` ends where n3's lexer ends it: at a delimiter,
   * after at most one dot, or at the end of the text.
   */
  private check(at: number): void {
    let c = this.bytes[at];
    if (c === DOT) c = this.bytes[++at];
    if (at < this.end && AFTER_TOKEN[c] !== 1) throw UNSURE;
  }

  /** `<iri>`, resolved as n3 resolves it: an IRI without escapes. */
  private iri(): string {
    const bytes = this.bytes;
    const start = this.pos + 1;
    let at = start;
    let c = bytes[at];
    let wide = false;
    while (c !== GT) {
      if (c < 128) {
        if (IRI_CHAR[c] === 0) throw UNSURE;
      } else if (at >= this.end) throw UNSURE;
      else wide = true;
      c = bytes[++at];
    }
    this.pos = at + 1;
    const iri = wide ? bytes.toString('utf8', start, at) : this.text.slice(start, at);
    if (this.hasScheme(start, at)) return iri;
    const resolved = this.resolve()._resolveIRI(iri);
    if (resolved === null) throw UNSURE;
    return resolved;
  }

  /** Whether bytes `start` to `end` begin with a scheme, as n3 tests it (`/^[a-z][a-z0-9+.-]*:/i`). */
  private hasScheme(start: number, end: number): boolean {
    const bytes = this.bytes;
    if (LETTER[bytes[start]] !== 1) return false;
    for (let at = start + 1; at < end; at++) {
      const c = bytes[at];
      if (c === COLON) return true;
      if (SCHEME_CHAR[c] !== 1) return false;
    }
    return false;
  }

  /** A prefixed name, as its IRI. */
  private name(): string {
    const bytes = this.bytes;
    const start = this.pos;
    const colon = this.prefixEnd(start);
    if (bytes[colon] !== COLON) throw UNSURE;
    let at = colon + 1;
    let end = at;
    let escaped = false;
    for (;;) {
      const c = bytes[at];
      const first = end === colon + 1;
      const ascii = first ? LOCAL_START : LOCAL_CHAR;
      const length = c < 0x80 ? ascii[c] : this.nameChar(at, ascii, !first);
      if (length !== 0) end = at += length;
      else if (c === PERCENT && HEX[bytes[at + 1]] === 1 && HEX[bytes[at + 2]] === 1) end = at += 3;
      else if (c === BACKSLASH && LOCAL_ESCAPE[bytes[at + 1]] === 1) {
        end = at += 2;
        escaped = true;
      } else if (c === DOT && end > colon + 1) at++;
      else break;
    }
    this.check(end);
    this.pos = end;
    // most names repeat (predicates, classes, datatypes): one IRI string each, found without hashing
    const length = end - start;
    const slot = (length * 97 + bytes[end - 1] * 13 + bytes[Math.max(end - 2, start)]) & (NAME_SLOTS - 1);
    if (this.nameLength[slot] === length && sameBytes(this.bytes, this.nameAt[slot], start, length)) {
      return this.nameIri[slot];
    }
    if (this.prefixLength !== colon - start || !sameBytes(this.bytes, this.prefixAt, start, colon - start)) {
      const namespace = this.prefixes.get(this.decode(start, colon));
      if (namespace === undefined) throw UNSURE;
      this.namespace = namespace;
      this.prefixAt = start;
      this.prefixLength = colon - start;
    }
    const local = this.decode(colon + 1, end);
    // one flat string: `+` made a pair of strings that the statement kept and the writer flattened
    const iri = [this.namespace, escaped ? local.replace(/\\(.)/g, '$1') : local].join('');
    this.nameAt[slot] = start;
    this.nameLength[slot] = length;
    this.nameIri[slot] = iri;
    return iri;
  }

  /**
   * The length in bytes of the name character at `at`, 0 when there is none: ASCII ones from
   * `ascii`, others as n3's lexer classes them: PN_CHARS_BASE, and with `extended` the rest of
   * PN_CHARS (U+00B7, U+0300-U+036F, U+203F-U+2040).
   */
  private nameChar(at: number, ascii: Uint8Array, extended: boolean): number {
    const bytes = this.bytes;
    const c = bytes[at];
    if (c < 0x80) return ascii[c];
    // the bytes are valid UTF-8: a lead byte and its continuation bytes
    if (c < 0xe0) {
      const code = ((c & 0x1f) << 6) | (bytes[at + 1] & 0x3f);
      return isBaseChar(code) || (extended && (code === 0xb7 || (code >= 0x300 && code <= 0x36f))) ? 2 : 0;
    }
    if (c < 0xf0) {
      const code = ((c & 0x0f) << 12) | ((bytes[at + 1] & 0x3f) << 6) | (bytes[at + 2] & 0x3f);
      // name characters that n3's lexer also takes for whitespace, ending `a`, `true` or `PREFIX`
      if (code === 0x1680 || code === 0xfeff) throw UNSURE;
      return isBaseChar(code) || (extended && (code === 0x203f || code === 0x2040)) ? 3 : 0;
    }
    const code = ((c & 0x07) << 18) | ((bytes[at + 1] & 0x3f) << 12) | ((bytes[at + 2] & 0x3f) << 6);
    // n3 takes a surrogate pair with a high half up to U+DB7F: U+10000 to U+EFFFF
    return code >= 0x10000 && code < 0xf0000 ? 4 : 0;
  }

  /** Bytes `start` to `end` as text, decoded only when some byte is not ASCII. */
  private decode(start: number, end: number): string {
    const bytes = this.bytes;
    for (let at = start; at < end; at++) if (bytes[at] >= 0x80) return bytes.toString('utf8', start, end);
    return this.text.slice(start, end);
  }

  /** `_:label` as the document's label. */
  private label(): string {
    const bytes = this.bytes;
    if (bytes[this.pos + 1] !== COLON) throw UNSURE;
    const start = this.pos + 2;
    let at = start;
    const first = this.nameChar(at, LABEL_START, false);
    if (first === 0) throw UNSURE;
    at += first;
    for (;;) {
      let length = this.nameChar(at, NAME_CHAR, true);
      if (length === 0 && bytes[at] === DOT) {
        length = this.nameChar(at + 1, NAME_CHAR, true);
        // n3's label expression takes a dot only before a character of the Basic Multilingual Plane
        length = length === 0 || length === 4 ? 0 : length + 1;
      }
      if (length === 0) break;
      at += length;
    }
    this.check(at);
    this.pos = at;
    if (at - start !== this.lastLabel.length || !this.text.startsWith(this.lastLabel, start)) {
      this.lastLabel = this.text.slice(start, at);
      this.lastBlank = this.labelPrefix + this.decode(start, at);
    }
    return this.lastBlank;
  }

  /** A number as n3's lexer reads it: the lexical form, typed integer, decimal or double. */
  private number(): string {
    const bytes = this.bytes;
    const start = this.pos;
    let at = start;
    if (bytes[at] === PLUS || bytes[at] === DASH) at++;
    const intStart = at;
    while (DIGIT[bytes[at]] === 1) at++;
    const digits = at > intStart;
    let datatype = XSD_INTEGER;
    if (bytes[at] === DOT && DIGIT[bytes[at + 1]] === 1) {
      at++;
      while (DIGIT[bytes[at]] === 1) at++;
      datatype = XSD_DECIMAL;
    } else if (!digits) throw UNSURE;
    else if (bytes[at] === DOT && (bytes[at + 1] | 0x20) === 0x65 && this.exponent(at + 2) > 0) {
      // `1.e5`: a double whose dot has no digits after it
      at++;
    }
    if ((bytes[at] | 0x20) === 0x65) {
      const exponentEnd = this.exponent(at + 1);
      if (exponentEnd < 0) throw UNSURE;
      at = exponentEnd;
      datatype = XSD_DOUBLE;
    }
    this.check(at);
    this.pos = at;
    this.datatype = datatype;
    return this.text.slice(start, at);
  }

  /** The end of an exponent's `[+-]?[0-9]+` starting at `at`, or -1. */
  private exponent(at: number): number {
    const bytes = this.bytes;
    if (bytes[at] === PLUS || bytes[at] === DASH) at++;
    if (DIGIT[bytes[at]] !== 1) return -1;
    while (DIGIT[bytes[at]] === 1) at++;
    return at;
  }

  /** A string literal in any of the four quote forms, with its language tag or datatype. */
  private literal(quote: number): string {
    const bytes = this.bytes;
    const long = bytes[this.pos + 1] === quote && bytes[this.pos + 2] === quote;
    const start = this.pos + (long ? 3 : 1);
    let at = start;
    let escaped = false;
    let wide = false;
    for (;;) {
      const c = bytes[at];
      if (c === quote) {
        if (!long) break;
        if (bytes[at + 1] === quote && bytes[at + 2] === quote) {
          // a fourth quote would be part of the string by the grammar, not by n3
          if (bytes[at + 3] === quote) throw UNSURE;
          break;
        }
      } else if (c === BACKSLASH) {
        escaped = true;
        at++;
      } else if (c >= 128) wide = true;
      else if (at >= this.end || (!long && (c === LF || c === CR))) throw UNSURE;
      at++;
    }
    const raw = wide ? bytes.toString('utf8', start, at) : this.text.slice(start, at);
    const value = escaped ? unescapeString(raw) : raw;
    at += long ? 3 : 1;
    const c = bytes[at];
    if (c === AT) this.tag(at + 1);
    else if (c === CARET) {
      if (bytes[at + 1] !== CARET) throw UNSURE;
      this.pos = at + 2;
      const t = bytes[this.pos];
      const datatype = t === LT ? this.iri() : this.name();
      // n3 refuses these with a syntax error
      if (datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) throw UNSURE;
      this.datatype = datatype;
    } else {
      // n3 reads a quote right after a string differently from the grammar
      if (c === QUOTE || c === APOSTROPHE) throw UNSURE;
      this.pos = at;
    }
    return value;
  }

  /** The language tag starting at `start` (after the `@`), as n3's lexer reads it. */
  private tag(start: number): void {
    const bytes = this.bytes;
    let at = start;
    let subtag = start;
    let c = bytes[at];
    while (LETTER[c] === 1) c = bytes[++at];
    for (;;) {
      // n3 refuses a subtag longer than 8 characters
      if (at === subtag || at - subtag > 8) throw UNSURE;
      if (c !== DASH) break;
      subtag = at + 1;
      do c = bytes[++at];
      while (LETTER[c] === 1 || DIGIT[c] === 1);
    }
    if (AFTER_TAG[c] !== 1 && at < this.end) throw UNSURE;
    if (at - start !== this.lastLanguage.length || !this.text.startsWith(this.lastLanguage, start)) {
      const language = this.text.slice(start, at);
      // n3 reads `@version` after a literal as a keyword
      if (language.toLowerCase() === 'version') throw UNSURE;
      this.lastLanguage = language;
    }
    this.language = this.lastLanguage;
    this.pos = at;
  }
}

/**
 * Reads a whole Turtle document into the builder from its bytes in UTF-8 (without a byte-order
 * mark), relative IRIs resolved against `baseIri`. False when some part is outside what the
 * reader reads; the builder then holds some of the statements (see TurtleReader).
 */
export function readTurtle(utf8: Buffer, baseIri: string, builder: StatementBuilder): boolean {
  return new TurtleReader(utf8, baseIri, builder).read();
}
