/** The terms generated documents are written with: classes, link predicates, languages. */
import { DataFactory } from 'n3';
import { term } from './vocabularies.ts';

export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const TYPES = [
  'foaf:Person',
  'foaf:Organization',
  'schema:Place',
  'skos:Concept',
  'dcat:Dataset',
  'foaf:Document',
  'prov:Entity',
  'schema:CreativeWork',
];
export const LINK_PREDICATES = [
  'owl:sameAs',
  'rdfs:seeAlso',
  'foaf:knows',
  'dcterms:subject',
  'skos:related',
  'foaf:based_near',
  'dcterms:isPartOf',
];
export const LANGS = ['de', 'fr', 'el', 'ja'];

/** A prefixed name of a built-in vocabulary as an IRI node. */
export function t(curie: string) {
  const i = curie.indexOf(':');
  return DataFactory.namedNode(term(curie.slice(0, i), curie.slice(i + 1)));
}
