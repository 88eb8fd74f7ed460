import { normaliseIri, type Statement } from '../core/index.ts';
import { irisOf } from './triple-term.ts';

/**
 * The crawler's candidate links: every IRI in any position (subject, predicate, IRI object,
 * literal datatype, every IRI inside a triple term, the publisher's graph name), normalised by
 * core's normaliseIri (fragment stripped, http(s) only), deduplicated, in order of first
 * appearance. Each distinct IRI is normalised once.
 */
export function extractLinks(statements: readonly Statement[]): string[] {
  const seen = new Set<string>();
  const links = new Set<string>();
  const visit = (iri: string) => {
    if (seen.has(iri)) return;
    seen.add(iri);
    const link = normaliseIri(iri);
    if (link !== null) links.add(link);
  };
  for (const s of statements) {
    if (s.subject.charCodeAt(0) !== 0x5f) visit(s.subject);
    visit(s.predicate);
    if (s.objectKind === 'iri') visit(s.object);
    else if (s.objectKind === 'triple') for (const iri of irisOf(s.object)) visit(iri);
    else if (s.datatype !== null) visit(s.datatype);
    if (s.sourceGraph !== undefined && s.sourceGraph.charCodeAt(0) !== 0x5f) visit(s.sourceGraph);
  }
  return [...links];
}
