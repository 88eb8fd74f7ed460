import type { ObjectKind, Statement } from '../core/index.ts';

/**
 * A document's statements packed for the trip from a parse worker to the main thread: a few
 * large strings and two typed arrays instead of a million small objects, which structured
 * cloning would copy one property at a time. Subjects and objects are cut from `texts` by their
 * lengths; predicates, datatypes and language tags, a small vocabulary, are indices into `table`.
 * Per statement `numbers` holds: the subject's length (SAME_SUBJECT when it repeats the one
 * before), the predicate's index, the object's length, and for literals the datatype's index and
 * the language tag's index + 1 (0: none). `kinds` holds the object kind.
 */
export interface StatementWire {
  readonly count: number;
  readonly texts: readonly string[];
  readonly table: readonly string[];
  readonly numbers: Uint32Array;
  readonly kinds: Uint8Array;
}

const SAME_SUBJECT = 0xffffffff;
const KINDS: readonly ObjectKind[] = ['iri', 'bnode', 'literal'];
const KIND_CODE: Readonly<Record<ObjectKind, number>> = { iri: 0, bnode: 1, literal: 2 };
/** Characters per string of `texts`, well below V8's longest string (2^29 - 24). */
const TEXT_CHUNK = 1 << 26;

/**
 * Packs statements into a StatementWire; post it with `transferOf(wire)` as the transfer list.
 * `chunkChars` bounds each string of `texts` (a term longer than that gets a string of its own).
 */
export function encodeStatements(statements: readonly Statement[], chunkChars = TEXT_CHUNK): StatementWire {
  const numbers = new Uint32Array(statements.length * 5);
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
    kinds[i] = KIND_CODE[s.objectKind];
    if (s.objectKind === 'literal') {
      numbers[n++] = ref(s.datatype ?? '');
      numbers[n++] = s.lang === null ? 0 : ref(s.lang) + 1;
    }
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
    const objectKind = KINDS[kinds[i]];
    if (objectKind === 'literal') {
      const datatype = table[numbers[n++]];
      const lang = numbers[n++];
      statements[i] = {
        subject,
        predicate,
        object,
        objectKind,
        datatype,
        lang: lang === 0 ? null : table[lang - 1],
      };
    } else {
      statements[i] = { subject, predicate, object, objectKind, datatype: null, lang: null };
    }
  }
  return statements;
}
