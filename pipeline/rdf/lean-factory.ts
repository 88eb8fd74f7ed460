import {
  RDF_DIR_LANG_STRING,
  RDF_LANG_STRING,
  type RdfJsQuad,
  type RdfJsTerm,
  XSD_STRING,
} from './rdf-terms.ts';

const DEFAULT_GRAPH: RdfJsTerm = Object.freeze({ termType: 'DefaultGraph', value: '' });
const XSD_STRING_NODE: RdfJsTerm = Object.freeze({ termType: 'NamedNode', value: XSD_STRING });
const LANG_STRING_NODE: RdfJsTerm = Object.freeze({ termType: 'NamedNode', value: RDF_LANG_STRING });
const DIR_LANG_STRING_NODE: RdfJsTerm = Object.freeze({ termType: 'NamedNode', value: RDF_DIR_LANG_STRING });

/**
 * A data factory for n3's parser that makes terms as plain objects. n3's own terms keep a literal
 * as one id string (`"value"@lang`) and re-split it on every read of value, language or
 * datatype; building that string and splitting it again was a fifth of the parse time.
 * Unnamed blank nodes are `<labelPrefix>-<n>`, numbered per factory; n3 gives labelled ones
 * `<labelPrefix><label>`, and a label cannot start with `-`, so the two never meet.
 * A quad is also what n3 makes for an RDF 1.2 triple term, so it carries termType `Quad` as the
 * RDF/JS data model has it. Not for N3 mode, which reads terms' `id`.
 */
export function createLeanFactory(labelPrefix: string) {
  let blanks = 0;
  return {
    namedNode: (value: string): RdfJsTerm => ({ termType: 'NamedNode', value }),
    blankNode: (name?: string): RdfJsTerm => ({
      termType: 'BlankNode',
      value: name ?? `${labelPrefix}-${blanks++}`,
    }),
    variable: (value: string): RdfJsTerm => ({ termType: 'Variable', value }),
    defaultGraph: (): RdfJsTerm => DEFAULT_GRAPH,
    literal(
      value: string,
      languageOrDatatype?: string | RdfJsTerm | { language: string; direction?: string },
    ): RdfJsTerm {
      if (typeof languageOrDatatype === 'string') {
        return { termType: 'Literal', value, language: languageOrDatatype, datatype: LANG_STRING_NODE };
      }
      if (languageOrDatatype === undefined) {
        return { termType: 'Literal', value, language: '', datatype: XSD_STRING_NODE };
      }
      if ('termType' in languageOrDatatype) {
        return { termType: 'Literal', value, language: '', datatype: languageOrDatatype };
      }
      // n3 passes an object only for a directional tag (`"…"@en--ltr`)
      const { language, direction } = languageOrDatatype;
      return direction
        ? { termType: 'Literal', value, language, direction, datatype: DIR_LANG_STRING_NODE }
        : { termType: 'Literal', value, language, datatype: LANG_STRING_NODE };
    },
    quad: (subject: RdfJsTerm, predicate: RdfJsTerm, object: RdfJsTerm, graph?: RdfJsTerm): RdfJsQuad => ({
      termType: 'Quad',
      value: '',
      subject,
      predicate,
      object,
      graph: graph ?? DEFAULT_GRAPH,
    }),
  };
}
