import type { Statement } from '../core/index.ts';
import { escapeIri, escapeLiteral } from './nquads-escape.ts';
import { XSD_STRING } from './rdf-terms.ts';

/** The fields of a statement that make its triple (what a triple term holds). */
export type Triple = Omit<Statement, 'sourceGraph'>;

/** A language tag with the base direction after it, as N-Triples 1.2 writes it: `en`, `en--ltr`. */
function tag(s: Triple): string {
  return s.direction === undefined ? s.lang! : `${s.lang}--${s.direction}`;
}

/** The object term of a statement in N-Triples/N-Quads 1.2 syntax (a triple term is written as it is held). */
export function objectTerm(s: Triple): string {
  if (s.objectKind === 'iri') return `<${escapeIri(s.object)}>`;
  if (s.objectKind === 'bnode' || s.objectKind === 'triple') return s.object;
  const lexical = `"${escapeLiteral(s.object)}"`;
  if (s.lang !== null) return `${lexical}@${tag(s)}`;
  return s.datatype === null || s.datatype === XSD_STRING
    ? lexical
    : `${lexical}^^<${escapeIri(s.datatype)}>`;
}

/** An IRI or a blank node (`_:label`) as an N-Quads term. */
export function resourceTerm(value: string): string {
  return value.charCodeAt(0) === 0x5f ? value : `<${escapeIri(value)}>`;
}

/** One statement's triple as an N-Triples line without the final newline. */
export function ntriplesLine(s: Triple): string {
  return `${resourceTerm(s.subject)} <${escapeIri(s.predicate)}> ${objectTerm(s)} .`;
}

/**
 * One statement as a line of its document's dataset, the form hashed and diffed: the N-Triples
 * line, or for a statement in one of the publisher's named graphs the N-Quads line in that graph.
 */
export function statementLine(s: Statement): string {
  if (s.sourceGraph === undefined) return ntriplesLine(s);
  return `${resourceTerm(s.subject)} <${escapeIri(s.predicate)}> ${objectTerm(s)} ${resourceTerm(s.sourceGraph)} .`;
}

/** A predicate as written before each kind of object: `<p> `, then `<` or `"` for IRIs and literals. */
interface PredicateOut {
  readonly beforeBlank: string;
  readonly beforeIri: string;
  readonly beforeLiteral: string;
}

function predicateOut(predicate: string): PredicateOut {
  const beforeBlank = `<${escapeIri(predicate)}> `;
  return { beforeBlank, beforeIri: `${beforeBlank}<`, beforeLiteral: `${beforeBlank}"` };
}

/**
 * One document's statements as N-Quads 1.2 text, every line in graph `graph` (the document URL;
 * the publisher's own graph names are not written, see docs/rdf.md). Simple literals are written
 * without `^^xsd:string`, as canonical N-Quads has them; triple terms as they are held.
 * The bytes are those of `${subject} ${predicate} ${objectTerm} <graph> .` per line (ntriplesLine
 * plus the graph). The escaped subject is kept while it repeats, each predicate is escaped once,
 * and what follows an object is cached per kind of object, language and datatype: a line is a
 * few concatenations and one escape.
 */
export function serializeNQuads(statements: readonly Statement[], graph: string): string {
  const tail = ` <${escapeIri(graph)}> .\n`;
  const iriTail = `>${tail}`;
  const simpleTail = `"${tail}`;
  const predicates = new Map<string, PredicateOut>();
  // null: nothing cached yet (an empty string is a value)
  let subject: string | null = null;
  let subjectOut = '';
  let predicate: string | null = null;
  let before: PredicateOut = predicateOut('');
  let lang: string | null = null;
  let direction: string | undefined;
  let langTail = '';
  let datatype: string | null = null;
  let datatypeTail = '';
  let out = '';
  for (const s of statements) {
    if (s.subject !== subject) {
      subject = s.subject;
      subjectOut = `${resourceTerm(subject)} `;
    }
    if (s.predicate !== predicate) {
      predicate = s.predicate;
      let known = predicates.get(predicate);
      if (known === undefined) {
        known = predicateOut(predicate);
        predicates.set(predicate, known);
      }
      before = known;
    }
    if (s.objectKind === 'iri') out += subjectOut + before.beforeIri + escapeIri(s.object) + iriTail;
    else if (s.objectKind === 'bnode' || s.objectKind === 'triple')
      out += subjectOut + before.beforeBlank + s.object + tail;
    else {
      let after = simpleTail;
      if (s.lang !== null) {
        if (s.lang !== lang || s.direction !== direction) {
          lang = s.lang;
          direction = s.direction;
          langTail = `"@${tag(s)}${tail}`;
        }
        after = langTail;
      } else if (s.datatype !== null && s.datatype !== XSD_STRING) {
        if (s.datatype !== datatype) {
          datatype = s.datatype;
          datatypeTail = `"^^<${escapeIri(datatype)}>${tail}`;
        }
        after = datatypeTail;
      }
      out += subjectOut + before.beforeLiteral + escapeLiteral(s.object) + after;
    }
  }
  return out;
}

/** Where N-Quads go: a Node writable (a file, a gzip stream). */
export interface NQuadsSink {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  end(callback?: () => void): unknown;
}

/** A streaming N-Quads writer: one chunk per document, waiting for the sink when it is full. */
export interface NQuadsWriter {
  /** Writes one document's statements in its graph; resolves when the sink can take more. */
  writeDocument(statements: readonly Statement[], graph: string): Promise<void>;
  /** Ends the sink; resolves when it has flushed. */
  end(): Promise<void>;
}

/** Creates a writer over `sink` that respects its backpressure. */
export function createNQuadsWriter(sink: NQuadsSink): NQuadsWriter {
  return {
    writeDocument(statements, graph) {
      if (statements.length === 0) return Promise.resolve();
      if (sink.write(serializeNQuads(statements, graph))) return Promise.resolve();
      return new Promise((resolve) => sink.once('drain', resolve));
    },
    end() {
      return new Promise((resolve) => sink.end(resolve));
    },
  };
}
