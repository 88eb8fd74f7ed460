import { createHash } from 'node:crypto';
import type { BaseDirection, ObjectKind, Statement } from '../core/index.ts';
import {
  RDF_DIR_LANG_STRING,
  RDF_LANG_STRING,
  type RdfJsQuad,
  type RdfJsTerm,
  XSD_STRING,
} from './rdf-terms.ts';
import { tripleTermText } from './triple-term.ts';

const LANG_TAG = /^[a-z]+(?:-[a-z0-9]+)*$/;
/** Slots of the string-sharing cache (a power of two). */
const SHARED_SLOTS = 64;

/**
 * Collects one document's statements from any parser. Blank-node labels start with the
 * document's prefix (`b` + 8 hex digits of SHA-256 of its URL + `_`), so two documents never
 * share a blank node, and are deterministic: the same bytes at the same URL give the same labels.
 * `add` relabels whatever the parser invented as `<prefix><n>` in order of first appearance;
 * `addPrefixed` is for a parser that was given `labelPrefix` and already makes every label
 * `labelPrefix` + something unique within the document (n3 does: see parse-n3-family.ts).
 */
export interface StatementBuilder {
  readonly statements: Statement[];
  /** The document's blank-node label prefix, without `_:`. */
  readonly labelPrefix: string;
  /**
   * Adds a quad, relabelling its blank nodes. A graph name is kept as the statement's sourceGraph
   * (the graph is still the document); an RDF 1.2 triple term object and a literal's base direction
   * are kept too.
   */
  add(quad: RdfJsQuad): void;
  /** Adds a quad whose blank-node values already start with `labelPrefix`. */
  addPrefixed(quad: RdfJsQuad): void;
  /** Adds a quad (relabelling) unless it sits in a named graph; N3 formulas are quoted, not asserted. */
  addDefaultGraphOnly(quad: RdfJsQuad): void;
  /**
   * Adds a statement from terms that are already valid, without RDF/JS term objects: IRIs with a
   * scheme, blank nodes as final `_:` labels. `language` is the tag as written ('' for none),
   * `datatype` the IRI as written ('' for a simple literal); both are ignored unless the object
   * is a literal.
   */
  addTerms(
    subject: string,
    predicate: string,
    object: string,
    objectKind: ObjectKind,
    language: string,
    datatype: string,
  ): void;
  /**
   * Puts the statement added last in the publisher's named graph `sourceGraph` (an IRI with a
   * scheme, or a final `_:` label): for a reader that reads the graph name after the statement.
   */
  inNamedGraph(sourceGraph: string): void;
  /** Drops every statement added so far: a reader that gave up hands the document to another. */
  discard(): void;
}

/** The blank-node label prefix of a document: `b` plus 8 hex digits of SHA-256 of its URL, `_`. */
export function blankNodePrefix(documentUrl: string): string {
  return `b${createHash('sha256').update(documentUrl).digest('hex').slice(0, 8)}_`;
}

function isDirection(value: string | undefined): value is BaseDirection {
  return value === 'ltr' || value === 'rtl';
}

/**
 * The statement with what addTerms leaves out (rare: a base direction, a publisher's graph name),
 * its fields always in the same order, so that statements come in few shapes.
 */
function withExtras(
  s: Statement,
  direction: BaseDirection | undefined,
  sourceGraph: string | null,
): Statement {
  const { subject, predicate, object, objectKind, datatype, lang } = s;
  // a direction needs a language tag: one that could not be made valid left a simple literal
  if (direction !== undefined && lang !== null) {
    const directional = {
      subject,
      predicate,
      object,
      objectKind,
      datatype: RDF_DIR_LANG_STRING,
      lang,
      direction,
    };
    return sourceGraph === null ? directional : { ...directional, sourceGraph };
  }
  return sourceGraph === null ? s : { subject, predicate, object, objectKind, datatype, lang, sourceGraph };
}

/** A language tag in the form N-Quads accepts, lower-cased; null when it cannot be made valid. */
export function normaliseLanguage(tag: string): string | null {
  const lower = tag.toLowerCase();
  if (LANG_TAG.test(lower)) return lower;
  // `en_US` is a common slip with an obvious meaning; anything else is not guessed at
  const repaired = lower.replace(/_/g, '-');
  return LANG_TAG.test(repaired) ? repaired : null;
}

/**
 * Whether an IRI starts with a scheme (`letter *(letter / digit / "+" / "-" / ".") ":"`). Parsers
 * that do not resolve every IRI let a relative or mangled one through (RDFa's `vocab="\uFFFDhttp:…"`
 * gives `\uFFFDhttp://schema.org/name`); N-Quads cannot carry it, strict readers reject the line.
 */
function hasScheme(iri: string): boolean {
  const first = iri.charCodeAt(0) | 0x20;
  if (first < 0x61 || first > 0x7a) return false;
  for (let i = 1; i < iri.length; i++) {
    const c = iri.charCodeAt(i);
    if (c === 0x3a) return true;
    const lower = c | 0x20;
    const schemeChar =
      (lower >= 0x61 && lower <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
    if (!schemeChar) return false;
  }
  return false;
}

/** A builder for the document at `documentUrl` (see StatementBuilder). */
export function createStatementBuilder(documentUrl: string): StatementBuilder {
  const labelPrefix = blankNodePrefix(documentUrl);
  const prefix = `_:${labelPrefix}`;
  const labels = new Map<string, string>();
  const statements: Statement[] = [];
  let lastLang = '';
  let lastLangNormalised: string | null = null;
  let lastSubject = '';

  // Parsers make a new string for every occurrence of an IRI. Predicates and datatypes come from
  // a small vocabulary: keeping one copy each (found by length, without hashing) cuts the memory a
  // large document holds, and with it the garbage collector's work.
  const slots: string[] = new Array(SHARED_SLOTS).fill('');
  const shared = (value: string): string => {
    const slot = value.length & (SHARED_SLOTS - 1);
    const known = slots[slot];
    if (known === value) return known;
    slots[slot] = value;
    return value;
  };

  const relabel = (value: string): string => {
    let label = labels.get(value);
    if (label === undefined) {
      label = prefix + labels.size;
      labels.set(value, label);
    }
    return label;
  };
  const keep = (value: string): string => `_:${value}`;

  const addTerms: StatementBuilder['addTerms'] = (subject, p, object, objectKind, language, given) => {
    if (subject === lastSubject) subject = lastSubject;
    else lastSubject = subject;
    const predicate = shared(p);
    if (objectKind !== 'literal') {
      statements.push({ subject, predicate, object, objectKind, datatype: null, lang: null });
      return;
    }
    if (language) {
      if (language !== lastLang) {
        lastLang = language;
        lastLangNormalised = normaliseLanguage(language);
      }
      const lang = lastLangNormalised;
      const datatype = lang === null ? XSD_STRING : RDF_LANG_STRING;
      statements.push({ subject, predicate, object, objectKind, datatype, lang });
      return;
    }
    const datatype =
      !given || given === RDF_DIR_LANG_STRING || given === RDF_LANG_STRING ? XSD_STRING : shared(given);
    statements.push({ subject, predicate, object, objectKind, datatype, lang: null });
  };

  // n3 resolves every IRI against the base, so the prefixed path (n3's) skips the scheme check
  const adder = (blank: (value: string) => string, checked: boolean) => {
    const resource = (term: RdfJsTerm): string | null => {
      if (term.termType === 'NamedNode') return !checked || hasScheme(term.value) ? term.value : null;
      if (term.termType === 'BlankNode') return blank(term.value);
      return null;
    };
    const predicateOf = (p: RdfJsTerm): string | null =>
      p.termType === 'NamedNode' && (!checked || hasScheme(p.value)) ? p.value : null;
    const datatypeOf = (o: RdfJsTerm): string | null => {
      const given = o.datatype?.value ?? '';
      return checked && !o.language && given && !hasScheme(given) ? null : given;
    };

    /** A triple term (RDF/JS termType `Quad`) as its text, or null when a part cannot be held. */
    const tripleTerm = (term: RdfJsTerm): string | null => {
      const subject = term.subject && resource(term.subject);
      const predicate = term.predicate && predicateOf(term.predicate);
      const o = term.object;
      if (!subject || !predicate || !o) return null;
      if (o.termType === 'Literal') {
        const given = datatypeOf(o);
        if (given === null) return null;
        const lang = o.language ? normaliseLanguage(o.language) : null;
        const datatype =
          lang !== null
            ? RDF_LANG_STRING
            : !given || given === RDF_DIR_LANG_STRING || given === RDF_LANG_STRING
              ? XSD_STRING
              : given;
        const literal = {
          subject,
          predicate,
          object: o.value,
          objectKind: 'literal' as const,
          datatype,
          lang,
        };
        return tripleTermText(
          lang !== null && isDirection(o.direction)
            ? { ...literal, datatype: RDF_DIR_LANG_STRING, direction: o.direction }
            : literal,
        );
      }
      const nested = o.termType === 'Quad';
      const object = nested ? tripleTerm(o) : resource(o);
      if (object === null) return null;
      const objectKind = nested ? 'triple' : o.termType === 'NamedNode' ? 'iri' : 'bnode';
      return tripleTermText({ subject, predicate, object, objectKind, datatype: null, lang: null });
    };

    return (quad: RdfJsQuad): void => {
      const subject = resource(quad.subject);
      const predicate = predicateOf(quad.predicate);
      // generalised RDF (literal subjects, blank-node predicates, triple-term subjects), variables
      // and IRIs without a scheme have no place in a Statement: they are dropped, the rest is kept
      if (subject === null || predicate === null) return;
      // the publisher's graph name, kept as it is given (it is never written as an N-Quads term)
      const g = quad.graph;
      const sourceGraph =
        g.termType === 'NamedNode' ? g.value : g.termType === 'BlankNode' ? blank(g.value) : null;
      const o = quad.object;
      let direction: BaseDirection | undefined;
      if (o.termType === 'Literal') {
        const given = datatypeOf(o);
        if (given === null) return;
        addTerms(subject, predicate, o.value, 'literal', o.language ?? '', given);
        if (o.language && isDirection(o.direction)) direction = o.direction;
      } else if (o.termType === 'Quad') {
        const object = tripleTerm(o);
        if (object === null) return;
        addTerms(subject, predicate, object, 'triple', '', '');
      } else {
        const object = resource(o);
        if (object === null) return;
        addTerms(subject, predicate, object, o.termType === 'NamedNode' ? 'iri' : 'bnode', '', '');
      }
      if (direction !== undefined || sourceGraph !== null) {
        const last = statements.length - 1;
        statements[last] = withExtras(statements[last], direction, sourceGraph);
      }
    };
  };

  const add = adder(relabel, true);
  return {
    statements,
    labelPrefix,
    add,
    addPrefixed: adder(keep, false),
    addDefaultGraphOnly(quad) {
      if (quad.graph.termType === 'DefaultGraph') add(quad);
    },
    addTerms,
    inNamedGraph(sourceGraph) {
      const last = statements.length - 1;
      statements[last] = withExtras(statements[last], undefined, sourceGraph);
    },
    discard() {
      statements.length = 0;
    },
  };
}
