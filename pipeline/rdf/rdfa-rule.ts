import type { Statement } from '../core/index.ts';

/**
 * The RDFa rule. Almost every HTML page yields a few RDFa triples by accident: `<link
 * rel="stylesheet|icon|alternate|next|...">` and `<a rel="license">` become XHTML-vocabulary
 * triples, `role="main"` becomes xhv:role, `rel="describedby"` a POWDER-S triple, `@vocab` an
 * rdfa:usesVocabulary triple; `<title>` and `<meta name=viewport|charset|description>` yield none.
 * A page publishes RDFa only when at least one of its statements has a predicate outside those
 * incidental ones, i.e. the author wrote `property`, `typeof`, or a `rel`/`rev` with a prefixed
 * name or full IRI. Then all of its statements are kept; otherwise the page is `not_rdf`.
 */
const INCIDENTAL_NAMESPACES = ['http://www.w3.org/1999/xhtml/vocab#', 'http://www.w3.org/ns/rdfa#'];
const INCIDENTAL_PREDICATES = new Set([
  'http://www.w3.org/2007/05/powder-s#describedby',
  'http://www.w3.org/2003/g/data-view#transformation',
]);

/** Whether a predicate is one that RDFa produces from ordinary HTML by accident. */
export function isIncidentalRdfaPredicate(predicate: string): boolean {
  return INCIDENTAL_PREDICATES.has(predicate) || INCIDENTAL_NAMESPACES.some((ns) => predicate.startsWith(ns));
}

/** Whether the statements an RDFa parse produced amount to published RDFa (see the rule above). */
export function publishesRdfa(statements: readonly Statement[]): boolean {
  return statements.some((s) => !isIncidentalRdfaPredicate(s.predicate));
}
