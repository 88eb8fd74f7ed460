/** Small builders for hand-made statements in tests. */
import type { Statement } from '../../pipeline/core/index.ts';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

/** A statement with an IRI or blank-node object (blank when it starts with `_:`). */
export function link(subject: string, predicate: string, object: string): Statement {
  const objectKind = object.startsWith('_:') ? 'bnode' : 'iri';
  return { subject, predicate, object, objectKind, datatype: null, lang: null };
}

/** A statement with a literal object. */
export function literal(
  subject: string,
  predicate: string,
  value: string,
  lang: string | null = null,
  datatype = XSD_STRING,
): Statement {
  return {
    subject,
    predicate,
    object: value,
    objectKind: 'literal',
    datatype: lang ? 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString' : datatype,
    lang,
  };
}
