import { createHash } from 'node:crypto';
import type { Statement } from '../core/index.ts';
import {
  RDF_DIR_LANG_STRING,
  RDF_LANG_STRING,
  type RdfJsQuad,
  type RdfJsTerm,
  XSD_STRING,
} from './rdf-terms.ts';

const LANG_TAG = /^[a-z]+(?:-[a-z0-9]+)*$/;

/**
 * Collects one document's statements from any parser. Blank nodes are relabelled in order of
 * first appearance as `_:b<hash>_<n>`, where `<hash>` is a short hash of the document URL: labels
 * are unique across documents (two documents never share a blank node) and deterministic (the
 * same bytes at the same URL give the same labels), whatever labels the parser invented.
 */
export interface StatementBuilder {
  readonly statements: Statement[];
  /** Adds a quad; the graph name is dropped (the observatory's graph is the document). */
  add(quad: RdfJsQuad): void;
  /** Adds a quad unless it sits in a named graph; N3 formulas are quoted, not asserted. */
  addDefaultGraphOnly(quad: RdfJsQuad): void;
}

/** The blank-node label prefix of a document: `b` plus 8 hex digits of SHA-256 of its URL. */
export function blankNodePrefix(documentUrl: string): string {
  return `b${createHash('sha256').update(documentUrl).digest('hex').slice(0, 8)}_`;
}

/** A language tag in the form N-Quads accepts, lower-cased; null when it cannot be made valid. */
export function normaliseLanguage(tag: string): string | null {
  const lower = tag.toLowerCase();
  if (LANG_TAG.test(lower)) return lower;
  // `en_US` is a common slip with an obvious meaning; anything else is not guessed at
  const repaired = lower.replace(/_/g, '-');
  return LANG_TAG.test(repaired) ? repaired : null;
}

/** A builder for the document at `documentUrl` (see StatementBuilder). */
export function createStatementBuilder(documentUrl: string): StatementBuilder {
  const prefix = `_:${blankNodePrefix(documentUrl)}`;
  const labels = new Map<string, string>();
  const statements: Statement[] = [];
  let lastLang = '';
  let lastLangNormalised: string | null = null;

  const blank = (value: string): string => {
    let label = labels.get(value);
    if (label === undefined) {
      label = prefix + labels.size;
      labels.set(value, label);
    }
    return label;
  };

  const resource = (term: RdfJsTerm): string | null => {
    if (term.termType === 'NamedNode') return term.value;
    if (term.termType === 'BlankNode') return blank(term.value);
    return null;
  };

  const add = (quad: RdfJsQuad): void => {
    const subject = resource(quad.subject);
    const p = quad.predicate;
    // generalised RDF (literal subjects, blank-node predicates), variables and triple terms have
    // no place in a Statement: they are dropped, the rest of the document is kept
    if (subject === null || p.termType !== 'NamedNode') return;
    const o = quad.object;
    if (o.termType === 'Literal') {
      const language = o.language;
      if (language) {
        if (language !== lastLang) {
          lastLang = language;
          lastLangNormalised = normaliseLanguage(language);
        }
        statements.push({
          subject,
          predicate: p.value,
          object: o.value,
          objectKind: 'literal',
          datatype: lastLangNormalised === null ? XSD_STRING : RDF_LANG_STRING,
          lang: lastLangNormalised,
        });
        return;
      }
      const datatype = o.datatype?.value;
      statements.push({
        subject,
        predicate: p.value,
        object: o.value,
        objectKind: 'literal',
        datatype:
          !datatype || datatype === RDF_DIR_LANG_STRING || datatype === RDF_LANG_STRING
            ? XSD_STRING
            : datatype,
        lang: null,
      });
      return;
    }
    const object = resource(o);
    if (object === null) return;
    statements.push({
      subject,
      predicate: p.value,
      object,
      objectKind: o.termType === 'NamedNode' ? 'iri' : 'bnode',
      datatype: null,
      lang: null,
    });
  };

  return {
    statements,
    add,
    addDefaultGraphOnly(quad) {
      if (quad.graph.termType === 'DefaultGraph') add(quad);
    },
  };
}
