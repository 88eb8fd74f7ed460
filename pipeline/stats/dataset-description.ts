import jsonld from 'jsonld';
import { DataFactory, type Quad, type Quad_Object, Writer } from 'n3';
import type { SnapshotView } from './portal-data.ts';

const { namedNode, literal, blankNode, quad } = DataFactory;

const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dct: 'http://purl.org/dc/terms/',
  dcat: 'http://www.w3.org/ns/dcat#',
  void: 'http://rdfs.org/ns/void#',
  spdx: 'http://spdx.org/rdf/terms#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
} as const;

/** The licence the portal states for the published snapshots (see docs/portal.md). */
export const DATA_LICENCE = 'https://creativecommons.org/licenses/by/4.0/';
export const DATASET_TITLE = 'Linked Data Observatory snapshots';
export const DATASET_DESCRIPTION =
  'Weekly snapshots of a kernel of Linked Data documents plus an adaptive crawl, and sub-weekly re-visits of the dynamic ones, as N-Quads and Parquet.';
/** What the description and the About page say when the operators did not configure themselves. */
export const UNSET_PUBLISHER =
  'The operators of this portal (publisher not configured: observatory portal --publisher)';
export const UNSET_CONTACT =
  'The operators of this portal (contact not configured: observatory portal --contact)';

/** IANA's registry page of a media type: what DCAT asks dcat:mediaType and dcat:compressFormat to be. */
export function ianaMediaType(type: string): string {
  return `https://www.iana.org/assignments/media-types/${type}`;
}

/** The media type of a published file, and the compression around it (DCAT 3: the type is the content's). */
function fileFormat(name: string): { type: string; compress?: string } | null {
  if (name === 'manifest.json') return { type: 'application/json' };
  if (name === 'SHA256SUMS') return { type: 'text/plain' };
  if (name.endsWith('.nq.gz')) return { type: 'application/n-quads', compress: 'application/gzip' };
  if (name.endsWith('.parquet')) return { type: 'application/vnd.apache.parquet' };
  return null;
}

/** Who publishes, and how to reach them: configured, or a placeholder that says it is one. */
export interface Operators {
  readonly publisher: string | null;
  readonly contact: string | null;
}

const iri = (ns: keyof typeof NS, local: string) => namedNode(NS[ns] + local);
const int = (n: number) => literal(String(n), iri('xsd', 'integer'));
const nonNegative = (n: number) => literal(String(n), iri('xsd', 'nonNegativeInteger'));
const dateTime = (s: string) => literal(s, iri('xsd', 'dateTime'));

/** The IRI of the series as a whole: a thing described on the portal's dataset page, so it resolves. */
export function seriesIri(baseUrl: string): string {
  return `${baseUrl}dataset/#series`;
}

/** A snapshot's IRI: its page under the base URL. */
export function snapshotIri(baseUrl: string, name: string): string {
  return `${baseUrl}snapshots/${name}/`;
}

/**
 * VoID and DCAT for the published snapshots: the series is a dcat:DatasetSeries (and a
 * void:Dataset), each snapshot a dcat:Dataset in it with VoID counts from its manifest, and each
 * file a dcat:Distribution with its byte size and SHA-256 (spdx:Checksum).
 */
export function datasetQuads(
  baseUrl: string,
  snapshots: readonly SnapshotView[],
  operators: Operators,
): Quad[] {
  const out: Quad[] = [];
  const add = (s: Quad['subject'], p: Quad['predicate'], o: Quad_Object) => out.push(quad(s, p, o));
  const series = namedNode(seriesIri(baseUrl));
  add(series, iri('rdf', 'type'), iri('dcat', 'DatasetSeries'));
  add(series, iri('rdf', 'type'), iri('void', 'Dataset'));
  add(series, iri('dct', 'title'), literal(DATASET_TITLE, 'en'));
  add(series, iri('dct', 'description'), literal(DATASET_DESCRIPTION, 'en'));
  add(series, iri('dct', 'license'), namedNode(DATA_LICENCE));
  add(series, iri('dcat', 'landingPage'), namedNode(baseUrl));
  add(series, iri('foaf', 'homepage'), namedNode(baseUrl));
  add(series, iri('foaf', 'page'), namedNode(`${baseUrl}dataset/`));
  const publisher = blankNode('publisher');
  add(series, iri('dct', 'publisher'), publisher);
  add(publisher, iri('rdf', 'type'), iri('foaf', 'Agent'));
  add(publisher, iri('foaf', 'name'), literal(operators.publisher ?? UNSET_PUBLISHER));
  const contact = blankNode('contact');
  add(series, iri('dcat', 'contactPoint'), contact);
  add(contact, iri('rdf', 'type'), iri('vcard', 'Kind'));
  add(
    contact,
    iri('vcard', 'fn'),
    literal(operators.contact ? 'The operators of this portal' : UNSET_CONTACT),
  );
  if (operators.contact?.startsWith('mailto:'))
    add(contact, iri('vcard', 'hasEmail'), namedNode(operators.contact));
  else add(contact, iri('vcard', 'hasURL'), namedNode(operators.contact ?? `${baseUrl}about/#contact`));
  for (const s of snapshots) {
    const node = namedNode(snapshotIri(baseUrl, s.name));
    add(series, iri('void', 'subset'), node);
    add(node, iri('rdf', 'type'), iri('dcat', 'Dataset'));
    add(node, iri('rdf', 'type'), iri('void', 'Dataset'));
    add(node, iri('dcat', 'inSeries'), series);
    add(node, iri('dct', 'title'), literal(`${DATASET_TITLE}: ${s.kind} snapshot ${s.name}`, 'en'));
    add(node, iri('dct', 'identifier'), literal(s.name));
    add(node, iri('dct', 'issued'), dateTime(s.publishedAt));
    add(node, iri('dct', 'license'), namedNode(DATA_LICENCE));
    add(node, iri('dcat', 'landingPage'), node);
    const period = blankNode(`period-${s.name}`);
    add(node, iri('dct', 'temporal'), period);
    add(period, iri('rdf', 'type'), iri('dct', 'PeriodOfTime'));
    add(period, iri('dcat', 'startDate'), dateTime(s.startedAt));
    add(period, iri('dcat', 'endDate'), dateTime(s.endedAt));
    add(node, iri('void', 'triples'), int(s.stats.statements));
    add(node, iri('void', 'documents'), int(s.stats.documents));
    add(node, iri('void', 'distinctSubjects'), int(s.stats.distinctSubjects));
    add(node, iri('void', 'properties'), int(s.stats.distinctPredicates));
    add(node, iri('void', 'classes'), int(s.stats.distinctClasses));
    for (const f of s.files) {
      const dist = namedNode(`${snapshotIri(baseUrl, s.name)}#${encodeURIComponent(f.name)}`);
      add(node, iri('dcat', 'distribution'), dist);
      if (f.name === 'data.nq.gz') add(node, iri('void', 'dataDump'), namedNode(f.url));
      add(dist, iri('rdf', 'type'), iri('dcat', 'Distribution'));
      add(dist, iri('dct', 'title'), literal(f.name));
      add(dist, iri('dcat', 'downloadURL'), namedNode(f.url));
      add(dist, iri('dcat', 'byteSize'), nonNegative(f.bytes));
      const format = fileFormat(f.name);
      if (format) add(dist, iri('dcat', 'mediaType'), namedNode(ianaMediaType(format.type)));
      if (format?.compress)
        add(dist, iri('dcat', 'compressFormat'), namedNode(ianaMediaType(format.compress)));
      const sum = blankNode(`sha256-${s.name}-${f.name.replace(/\W/g, '_')}`);
      add(dist, iri('spdx', 'checksum'), sum);
      add(sum, iri('rdf', 'type'), iri('spdx', 'Checksum'));
      add(sum, iri('spdx', 'algorithm'), iri('spdx', 'checksumAlgorithm_sha256'));
      add(sum, iri('spdx', 'checksumValue'), literal(f.sha256, iri('xsd', 'hexBinary')));
    }
  }
  return out;
}

/** The quads as Turtle with the usual prefixes. */
export function toTurtle(quads: readonly Quad[]): Promise<string> {
  const writer = new Writer({ prefixes: { ...NS } });
  writer.addQuads([...quads]);
  return new Promise((resolve, reject) =>
    writer.end((error, text) => (error ? reject(error) : resolve(text))),
  );
}

/** The quads as compacted JSON-LD with the same prefixes as context. */
export async function toJsonLd(quads: readonly Quad[]): Promise<string> {
  const nquads = new Writer({ format: 'N-Quads' }).quadsToString([...quads]);
  const expanded = await jsonld.fromRDF(nquads, { format: 'application/n-quads' });
  const compacted = await jsonld.compact(expanded, { ...NS });
  return `${JSON.stringify(compacted, null, 2)}\n`;
}
