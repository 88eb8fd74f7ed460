import { normaliseIri, type Statement } from '../core/index.ts';

/**
 * The crawler's candidate links: every IRI in any position (subject, predicate, IRI object,
 * literal datatype), normalised by core's normaliseIri (fragment stripped, http(s) only),
 * deduplicated, in order of first appearance. Each distinct IRI is normalised once.
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
    else if (s.datatype !== null) visit(s.datatype);
  }
  return [...links];
}
