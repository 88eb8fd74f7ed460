/**
 * The vocabularies of the simulated Web: real namespaces (FOAF, Dublin Core, SKOS, ...) on their
 * real hosts, so that the most-linked documents of the real Web of Data are the most-linked here
 * too. Terms are a representative subset of each vocabulary, typed as classes or properties.
 */
import { ObservatoryError, type RdfFormat } from '../core/index.ts';

/** How a term IRI reaches its vocabulary document. */
export type TermStyle = 'hash' | 'see-other' | 'found';

export interface Vocabulary {
  readonly prefix: string;
  readonly namespace: string;
  readonly host: string;
  /** Path of the vocabulary document on `host`. */
  readonly docPath: string;
  readonly style: TermStyle;
  readonly format: RdfFormat;
  readonly title: string;
  readonly classes: readonly string[];
  readonly properties: readonly string[];
}

function vocab(
  prefix: string,
  namespace: string,
  docUrl: string,
  style: TermStyle,
  format: RdfFormat,
  title: string,
  classes: string,
  properties: string,
): Vocabulary {
  const u = new URL(docUrl);
  return Object.freeze({
    prefix,
    namespace,
    host: u.hostname,
    docPath: u.pathname,
    style,
    format,
    title,
    classes: Object.freeze(classes.split(' ').filter(Boolean)),
    properties: Object.freeze(properties.split(' ').filter(Boolean)),
  });
}

export const VOCABULARIES: readonly Vocabulary[] = Object.freeze([
  vocab(
    'rdf',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns',
    'hash',
    'rdfxml',
    'The RDF Concepts Vocabulary',
    'Property Statement Bag Seq Alt List',
    'type value first rest subject predicate object',
  ),
  vocab(
    'rdfs',
    'http://www.w3.org/2000/01/rdf-schema#',
    'http://www.w3.org/2000/01/rdf-schema',
    'hash',
    'rdfxml',
    'The RDF Schema vocabulary',
    'Resource Class Literal Datatype Container',
    'label comment seeAlso isDefinedBy subClassOf subPropertyOf domain range member',
  ),
  vocab(
    'owl',
    'http://www.w3.org/2002/07/owl#',
    'http://www.w3.org/2002/07/owl',
    'hash',
    'rdfxml',
    'The OWL 2 Schema vocabulary',
    'Thing Class ObjectProperty DatatypeProperty Ontology NamedIndividual',
    'sameAs equivalentClass equivalentProperty inverseOf versionInfo imports',
  ),
  vocab(
    'foaf',
    'http://xmlns.com/foaf/0.1/',
    'http://xmlns.com/foaf/spec/index.rdf',
    'see-other',
    'rdfxml',
    'Friend of a Friend (FOAF) vocabulary',
    'Person Organization Document Agent Group Image Project OnlineAccount PersonalProfileDocument',
    'name knows homepage mbox mbox_sha1sum depiction topic based_near nick page primaryTopic made maker img account interest workplaceHomepage givenName familyName',
  ),
  vocab(
    'dcterms',
    'http://purl.org/dc/terms/',
    'http://purl.org/dc/terms/',
    'found',
    'rdfxml',
    'DCMI Metadata Terms',
    'Agent BibliographicResource LinguisticSystem Location',
    'title description created modified creator contributor publisher subject license language issued identifier source isPartOf hasPart',
  ),
  vocab(
    'dc',
    'http://purl.org/dc/elements/1.1/',
    'http://purl.org/dc/elements/1.1/',
    'found',
    'rdfxml',
    'Dublin Core Metadata Element Set, Version 1.1',
    '',
    'title creator subject description publisher date format identifier language rights',
  ),
  vocab(
    'skos',
    'http://www.w3.org/2004/02/skos/core#',
    'http://www.w3.org/2004/02/skos/core',
    'hash',
    'rdfxml',
    'SKOS Vocabulary',
    'Concept ConceptScheme Collection',
    'prefLabel altLabel broader narrower related inScheme topConceptOf exactMatch closeMatch definition notation',
  ),
  vocab(
    'geo',
    'http://www.w3.org/2003/01/geo/wgs84_pos#',
    'http://www.w3.org/2003/01/geo/wgs84_pos',
    'hash',
    'rdfxml',
    'WGS84 Geo Positioning',
    'SpatialThing Point',
    'lat long alt location',
  ),
  vocab(
    'vcard',
    'http://www.w3.org/2006/vcard/ns#',
    'http://www.w3.org/2006/vcard/ns',
    'hash',
    'turtle',
    'An Ontology for vCards',
    'Individual Organization Address',
    'fn hasAddress locality country-name postal-code hasEmail',
  ),
  vocab(
    'dcat',
    'http://www.w3.org/ns/dcat#',
    'http://www.w3.org/ns/dcat',
    'hash',
    'turtle',
    'Data Catalog Vocabulary',
    'Dataset Distribution Catalog DataService',
    'distribution downloadURL accessURL mediaType keyword landingPage',
  ),
  vocab(
    'prov',
    'http://www.w3.org/ns/prov#',
    'http://www.w3.org/ns/prov',
    'hash',
    'turtle',
    'W3C PROVenance Interchange Ontology',
    'Entity Activity Agent',
    'wasGeneratedBy wasDerivedFrom wasAttributedTo generatedAtTime used',
  ),
  vocab(
    'void',
    'http://rdfs.org/ns/void#',
    'http://rdfs.org/ns/void',
    'hash',
    'rdfxml',
    'Vocabulary of Interlinked Datasets',
    'Dataset Linkset',
    'sparqlEndpoint triples dataDump exampleResource vocabulary subset',
  ),
  vocab(
    'sioc',
    'http://rdfs.org/sioc/ns#',
    'http://rdfs.org/sioc/ns',
    'hash',
    'rdfxml',
    'SIOC Core Ontology',
    'Post Forum Site UserAccount Container',
    'has_creator has_container content topic reply_of',
  ),
  vocab(
    'schema',
    'http://schema.org/',
    'http://schema.org/version/latest/schemaorg-current-http.jsonld',
    'see-other',
    'jsonld',
    'Schema.org vocabulary',
    'Thing Person Place Event CreativeWork Organization Product',
    'name description url sameAs startDate location author datePublished',
  ),
  vocab(
    'cc',
    'http://creativecommons.org/ns#',
    'http://creativecommons.org/schema.rdf',
    'hash',
    'rdfxml',
    'Creative Commons Rights Expression Language',
    'License Work',
    'license attributionName permits requires',
  ),
] as const);

/** The hosts that publish vocabularies (each is its own PLD's content, beside generated data). */
export const VOCABULARY_HOSTS: readonly string[] = [...new Set(VOCABULARIES.map((v) => v.host))];

/** A term's IRI. */
export function termIri(v: Vocabulary, local: string): string {
  return v.namespace + local;
}

/** The URL of a vocabulary's document. */
export function vocabularyDocUrl(v: Vocabulary): string {
  return `http://${v.host}${v.docPath}`;
}

const BY_PREFIX = new Map(VOCABULARIES.map((v) => [v.prefix, v]));

/** The IRI of `prefix:local` for a built-in vocabulary (throws on an unknown prefix: a bug). */
export function term(prefix: string, local: string): string {
  const v = BY_PREFIX.get(prefix);
  if (!v) throw new ObservatoryError('internal', `unknown vocabulary prefix ${prefix}`);
  return v.namespace + local;
}
