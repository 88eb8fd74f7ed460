import type { BaseDirection, ObjectKind, Statement } from '../core/index.ts';

/**
 * A document's statements packed for the trip from a parse worker to the main thread: a few
 * large strings and two typed arrays instead of a million small objects, which structured
 * cloning would copy one property at a time. Subjects and objects are cut from `texts` by their
 * lengths; predicates, datatypes and language tags, a small vocabulary, are indices into `table`.
 * Per statement `numbers` holds: the subject's length (SAME_SUBJECT when it repeats the one
 * before), the predicate's index, the object's length, for literals the datatype's index and
 * the language tag's index + 1 (0: none), and for a statement in a named graph of the publisher's
 * the graph name's index. `kinds` holds the object kind in its low bits, and flags for what is rare:
 * a base direction (and which) and a graph name.
 */
export interface StatementWire {
  readonly count: number;
  readonly texts: readonly string[];
  readonly table: readonly string[];
  readonly numbers: Uint32Array;
  readonly kinds: Uint8Array;
}

const SAME_SUBJECT = 0xffffffff;
const KINDS: readonly ObjectKind[] = ['iri', 'bnode', 'literal', 'triple'];
const KIND_CODE: Readonly<Record<ObjectKind, number>> = { iri: 0, bnode: 1, literal: 2, triple: 3 };
const KIND_BITS = 0b11;
/** Flags in `kinds`: a base direction (LTR or RTL), a publisher's graph name. */
const LTR = 0b100;
const RTL = 0b1000;
const IN_GRAPH = 0b10000;
/**
 * Numbers per statement allocated at first: enough for any statement outside a named graph
 * (subject, predicate, object, datatype, language); one in a named graph adds its graph name.
 */
const USUAL_NUMBERS = 5;
/** Characters per string of `texts`, well below V8's longest string (2^29 - 24). */
const TEXT_CHUNK = 1 << 26;

/**
 * Packs statements into a StatementWire; post it with `transferOf(wire)` as the transfer list.
 * `chunkChars` bounds each string of `texts` (a term longer than that gets a string of its own).
 */
export function encodeStatements(statements: readonly Statement[], chunkChars = TEXT_CHUNK): StatementWire {
  let numbers = new Uint32Array(statements.length * USUAL_NUMBERS);
  const kinds = new Uint8Array(statements.length);
  const table: string[] = [];
  const index = new Map<string, number>();
  const ref = (value: string): number => {
    let i = index.get(value);
    if (i === undefined) {
      i = table.length;
      table.push(value);
      index.set(value, i);
    }
    return i;
  };
  const texts: string[] = [];
  let parts: string[] = [];
  let chunkLength = 0;
  const put = (term: string): number => {
    // an empty term never opens a chunk: the reader moves on only for a term that does not fit
    if (term.length > 0 && chunkLength + term.length > chunkChars && parts.length > 0) {
      texts.push(parts.join(''));
      parts = [];
      chunkLength = 0;
    }
    parts.push(term);
    chunkLength += term.length;
    return term.length;
  };
  let n = 0;
  let subject: string | null = null;
  for (let i = 0; i < statements.length; i++) {
    const s = statements[i];
    if (s.subject === subject) numbers[n++] = SAME_SUBJECT;
    else {
      subject = s.subject;
      numbers[n++] = put(subject);
    }
    numbers[n++] = ref(s.predicate);
    numbers[n++] = put(s.object);
    let kind = KIND_CODE[s.objectKind];
    if (s.objectKind === 'literal') {
      numbers[n++] = ref(s.datatype ?? '');
      numbers[n++] = s.lang === null ? 0 : ref(s.lang) + 1;
      if (s.direction !== undefined) kind |= s.direction === 'ltr' ? LTR : RTL;
    }
    if (s.sourceGraph !== undefined) {
      // only a statement in a named graph takes more than USUAL_NUMBERS: room for one more number
      // for each from here on, the first time the rest might not fit
      if (n + 1 + (statements.length - i - 1) * USUAL_NUMBERS > numbers.length) {
        const grown = new Uint32Array(numbers.length + statements.length - i);
        grown.set(numbers);
        numbers = grown;
      }
      numbers[n++] = ref(s.sourceGraph);
      kind |= IN_GRAPH;
    }
    kinds[i] = kind;
  }
  texts.push(parts.join(''));
  return { count: statements.length, texts, table, numbers: numbers.subarray(0, n), kinds };
}

/** The buffers of a wire that can be transferred rather than copied. */
export function transferOf(wire: StatementWire): ArrayBuffer[] {
  return [wire.numbers.buffer as ArrayBuffer, wire.kinds.buffer as ArrayBuffer];
}

/**
 * Unpacks a StatementWire. Terms are slices of the wire's strings (V8 shares the characters), and a
 * repeated subject is the same string, as the statement builder shares them.
 */
export function decodeStatements(wire: StatementWire): Statement[] {
  const { texts, table, numbers, kinds } = wire;
  const statements: Statement[] = new Array(wire.count);
  let chunk = 0;
  let text = texts[0] ?? '';
  let pos = 0;
  const take = (length: number): string => {
    if (pos + length > text.length) {
      text = texts[++chunk];
      pos = 0;
    }
    const term = text.slice(pos, pos + length);
    pos += length;
    return term;
  };
  let n = 0;
  let subject = '';
  for (let i = 0; i < wire.count; i++) {
    const subjectLength = numbers[n++];
    if (subjectLength !== SAME_SUBJECT) subject = take(subjectLength);
    const predicate = table[numbers[n++]];
    const object = take(numbers[n++]);
    const kind = kinds[i];
    const objectKind = KINDS[kind & KIND_BITS];
    let s: Statement;
    if (objectKind === 'literal') {
      const datatype = table[numbers[n++]];
      const lang = numbers[n++];
      s = { subject, predicate, object, objectKind, datatype, lang: lang === 0 ? null : table[lang - 1] };
    } else {
      s = { subject, predicate, object, objectKind, datatype: null, lang: null };
    }
    statements[i] =
      kind <= KIND_BITS ? s : withRareFields(s, kind, kind & IN_GRAPH ? table[numbers[n++]] : null);
  }
  return statements;
}

/** A decoded statement with its direction and graph name, fields in the builder's order. */
function withRareFields(s: Statement, kind: number, sourceGraph: string | null): Statement {
  const direction: BaseDirection | undefined = kind & LTR ? 'ltr' : kind & RTL ? 'rtl' : undefined;
  const directional: Statement = direction === undefined ? s : { ...s, direction };
  return sourceGraph === null ? directional : { ...directional, sourceGraph };
}
