import { escapeIri } from './nquads-escape.ts';
import { objectTerm, resourceTerm, type Triple } from './nquads-writer.ts';

/**
 * RDF 1.2 triple terms as a Statement holds them (objectKind `triple`): their N-Triples 1.2 text
 * in canonical form, `<<( s p o )>>` with one space between the parts, terms written as the N-Quads
 * writer writes them (so a nested triple term is nested text). One text per term: two occurrences
 * of the same triple term are the same string, and the text is what data.nq.gz and quads.parquet
 * carry. The scanners below read only text made here.
 */

/** The triple term of a triple, in N-Triples 1.2 syntax. */
export function tripleTermText(t: Triple): string {
  return `<<( ${resourceTerm(t.subject)} <${escapeIri(t.predicate)}> ${objectTerm(t)} )>>`;
}

/**
 * Calls `visit` for each IRI (datatypes included, as written between `<` and `>`) and each blank
 * node (`_:label`) of a triple term's text, with its start and end offsets, in order.
 */
function scan(text: string, visit: (kind: 'iri' | 'bnode', start: number, end: number) => void): void {
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x3c /* < */) {
      if (text.charCodeAt(i + 1) === 0x3c) {
        i += 3; // `<<(`
        continue;
      }
      const end = text.indexOf('>', i + 1);
      visit('iri', i + 1, end);
      i = end + 1;
    } else if (c === 0x5f /* _ */ && text.charCodeAt(i + 1) === 0x3a) {
      // a label ends at the space before the next part or before ` )>>`
      const end = text.indexOf(' ', i);
      visit('bnode', i, end);
      i = end;
    } else if (c === 0x22 /* " */) {
      // a literal: its escapes include \" and \\; what follows (@tag, ^^<iri>) is read on
      let j = i + 1;
      for (let d = text.charCodeAt(j); d !== 0x22; d = text.charCodeAt(++j)) if (d === 0x5c) j++;
      i = j + 1;
    } else i++;
  }
}

/** Whether a triple term holds a blank node (at any depth). */
export function hasBlankNode(text: string): boolean {
  // cheap test first: most triple terms hold IRIs and literals only
  if (!text.includes('_:')) return false;
  let found = false;
  scan(text, (kind) => {
    if (kind === 'bnode') found = true;
  });
  return found;
}

/** The blank nodes (`_:label`) of a triple term, at any depth, in order, repeats included. */
export function blankNodesOf(text: string): string[] {
  const blanks: string[] = [];
  scan(text, (kind, start, end) => {
    if (kind === 'bnode') blanks.push(text.slice(start, end));
  });
  return blanks;
}

/** The IRIs of a triple term (datatypes included), at any depth, as written (escaped) in its text. */
export function irisOf(text: string): string[] {
  const iris: string[] = [];
  scan(text, (kind, start, end) => {
    if (kind === 'iri') iris.push(text.slice(start, end));
  });
  return iris;
}

/** The triple term with every blank node `b` replaced by `label(b)` (labels as `_:label`). */
export function relabelTripleTerm(text: string, label: (blank: string) => string): string {
  const pieces: string[] = [];
  let from = 0;
  scan(text, (kind, start, end) => {
    if (kind !== 'bnode') return;
    pieces.push(text.slice(from, start), label(text.slice(start, end)));
    from = end;
  });
  if (from === 0) return text;
  pieces.push(text.slice(from));
  return pieces.join('');
}

/** The parts of a triple term's text: subject, predicate and object as N-Triples terms. */
export function partsOf(text: string): [subject: string, predicate: string, object: string] {
  // `<<( ` subject ` ` predicate ` ` object ` )>>`: the subject and predicate hold no space
  // (IRIs are escaped, labels end at one), the object is the rest
  const inner = text.slice(4, -4);
  const afterSubject = inner.indexOf(' ');
  const afterPredicate = inner.indexOf(' ', afterSubject + 1);
  return [
    inner.slice(0, afterSubject),
    inner.slice(afterSubject + 1, afterPredicate),
    inner.slice(afterPredicate + 1),
  ];
}
