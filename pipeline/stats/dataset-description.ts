import { type FileHandle, open } from 'node:fs/promises';
import { DataFactory, type Quad, type Quad_Object, Writer } from 'n3';
import { type DownloadFile, EXPANSION_ROUND, type ExpansionView, type SnapshotView } from './portal-data.ts';

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
const EXPANSION_DESCRIPTION = `The breadth-first crawls from the core seeds that found the kernel (observatory expand), one snapshot of kind expand each. ${EXPANSION_ROUND} They observe no change.`;
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
  if (name.endsWith('.json')) return { type: 'application/json' };
  if (name === 'SHA256SUMS') return { type: 'text/plain' };
  if (name.endsWith('.nq.gz')) return { type: 'application/n-quads', compress: 'application/gzip' };
  if (name.endsWith('.parquet')) return { type: 'application/vnd.apache.parquet' };
  // WARC is registered as application/warc (ISO 28500); each record its own gzip member
  if (name.endsWith('.warc.gz')) return { type: 'application/warc', compress: 'application/gzip' };
  // CDXJ has no registered type: its lines are text, and so are a ZipNum index's (gzip blocks of
  // CDXJ lines, and the .idx line per block)
  if (name.endsWith('.cdxj') || name.endsWith('.idx')) return { type: 'text/plain' };
  if (name.endsWith('.cdx.gz')) return { type: 'text/plain', compress: 'application/gzip' };
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
 * VoID and DCAT for the published snapshots, in parts: the series is a dcat:DatasetSeries (and a
 * void:Dataset) with every snapshot as a subset (this part), each snapshot a dcat:Dataset in it
 * (`snapshotQuads`). A snapshot's part depends on nothing but the snapshot, so it can be cached.
 */
export function seriesQuads(
  baseUrl: string,
  snapshots: readonly { name: string }[],
  operators: Operators,
): Quad[] {
  const { out, add } = quadList();
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
  for (const s of snapshots) add(series, iri('void', 'subset'), namedNode(snapshotIri(baseUrl, s.name)));
  return out;
}

function quadList() {
  const out: Quad[] = [];
  const add = (s: Quad['subject'], p: Quad['predicate'], o: Quad_Object) => out.push(quad(s, p, o));
  return { out, add };
}

/**
 * A snapshot as a dcat:Dataset of the series with VoID counts from its manifest, and each file a
 * dcat:Distribution with its byte size and SHA-256 (spdx:Checksum).
 */
export function snapshotQuads(baseUrl: string, s: SnapshotView): Quad[] {
  const { out, add } = quadList();
  const series = namedNode(seriesIri(baseUrl));
  const node = namedNode(snapshotIri(baseUrl, s.name));
  add(node, iri('rdf', 'type'), iri('dcat', 'Dataset'));
  add(node, iri('rdf', 'type'), iri('void', 'Dataset'));
  add(node, iri('dcat', 'inSeries'), series);
  add(node, iri('dct', 'title'), literal(`${DATASET_TITLE}: ${s.kind} snapshot ${s.name}`, 'en'));
  add(node, iri('dct', 'identifier'), literal(s.name));
  add(node, iri('dct', 'issued'), dateTime(s.publishedAt));
  add(node, iri('dct', 'license'), namedNode(DATA_LICENCE));
  add(node, iri('dcat', 'landingPage'), node);
  periodQuads(add, node, s.name, s.startedAt, s.endedAt);
  add(node, iri('void', 'triples'), int(s.stats.statements));
  add(node, iri('void', 'documents'), int(s.stats.documents));
  add(node, iri('void', 'distinctSubjects'), int(s.stats.distinctSubjects));
  add(node, iri('void', 'properties'), int(s.stats.distinctPredicates));
  add(node, iri('void', 'classes'), int(s.stats.distinctClasses));
  distributionQuads(
    add,
    node,
    s.name,
    s.files,
    (f) => `${snapshotIri(baseUrl, s.name)}#${encodeURIComponent(f.name)}`,
  );
  return out;
}

/** Each file of a published folder as a dcat:Distribution of `node`, with its byte size and SHA-256. */
/** The crawl's time span as a `dct:PeriodOfTime` of `node`. */
function periodQuads(
  add: ReturnType<typeof quadList>['add'],
  node: Quad['subject'],
  name: string,
  startedAt: string,
  endedAt: string,
): void {
  const period = blankNode(`period-${name}`);
  add(node, iri('dct', 'temporal'), period);
  add(period, iri('rdf', 'type'), iri('dct', 'PeriodOfTime'));
  add(period, iri('dcat', 'startDate'), dateTime(startedAt));
  add(period, iri('dcat', 'endDate'), dateTime(endedAt));
}

function distributionQuads(
  add: ReturnType<typeof quadList>['add'],
  node: Quad['subject'],
  name: string,
  files: readonly DownloadFile[],
  distIri: (f: DownloadFile) => string,
): void {
  for (const f of files) {
    const dist = namedNode(distIri(f));
    add(node, iri('dcat', 'distribution'), dist);
    if (f.name === 'data.nq.gz') add(node, iri('void', 'dataDump'), namedNode(f.url));
    add(dist, iri('rdf', 'type'), iri('dcat', 'Distribution'));
    add(dist, iri('dct', 'title'), literal(f.name));
    add(dist, iri('dcat', 'downloadURL'), namedNode(f.url));
    add(dist, iri('dcat', 'byteSize'), nonNegative(f.bytes));
    const format = fileFormat(f.name);
    if (format) add(dist, iri('dcat', 'mediaType'), namedNode(ianaMediaType(format.type)));
    if (format?.compress) add(dist, iri('dcat', 'compressFormat'), namedNode(ianaMediaType(format.compress)));
    const sum = blankNode(`sha256-${name}-${f.name.replace(/\W/g, '_')}`);
    add(dist, iri('spdx', 'checksum'), sum);
    add(sum, iri('rdf', 'type'), iri('spdx', 'Checksum'));
    add(sum, iri('spdx', 'algorithm'), iri('spdx', 'checksumAlgorithm_sha256'));
    add(sum, iri('spdx', 'checksumValue'), literal(f.sha256, iri('xsd', 'hexBinary')));
  }
}

/** The series of the kernel expansion's crawls: their section of the Downloads page, so it resolves. */
export function expansionSeriesIri(baseUrl: string): string {
  return `${baseUrl}downloads/#expansion`;
}

/** An expansion crawl's IRI: its row on the Downloads page (it has no page of its own). */
export function expansionIri(baseUrl: string, name: string): string {
  return `${baseUrl}downloads/#${name}`;
}

/**
 * The kernel expansion's crawls (snapshots of kind `expand`) as a series of their own beside the
 * observations' (they observe no change, so they are no subsets of it): each crawl a dcat:Dataset
 * in it with VoID counts and its files as distributions, as a snapshot's are. Nothing without them.
 */
export function expansionQuads(baseUrl: string, expansions: readonly ExpansionView[]): Quad[] {
  const { out, add } = quadList();
  if (expansions.length === 0) return out;
  const series = namedNode(expansionSeriesIri(baseUrl));
  add(series, iri('rdf', 'type'), iri('dcat', 'DatasetSeries'));
  add(series, iri('rdf', 'type'), iri('void', 'Dataset'));
  add(series, iri('dct', 'title'), literal(`${DATASET_TITLE}: the kernel's expansion crawls`, 'en'));
  add(series, iri('dct', 'description'), literal(EXPANSION_DESCRIPTION, 'en'));
  add(series, iri('dct', 'license'), namedNode(DATA_LICENCE));
  add(series, iri('dcat', 'landingPage'), namedNode(`${baseUrl}downloads/`));
  add(series, iri('dct', 'relation'), namedNode(seriesIri(baseUrl)));
  for (const x of expansions) {
    const node = namedNode(expansionIri(baseUrl, x.name));
    add(series, iri('void', 'subset'), node);
    add(node, iri('rdf', 'type'), iri('dcat', 'Dataset'));
    add(node, iri('rdf', 'type'), iri('void', 'Dataset'));
    add(node, iri('dcat', 'inSeries'), series);
    add(
      node,
      iri('dct', 'title'),
      literal(`${DATASET_TITLE}: expansion crawl ${x.crawl} of ${x.of}, ${x.name}`, 'en'),
    );
    add(node, iri('dct', 'identifier'), literal(x.name));
    add(node, iri('dct', 'license'), namedNode(DATA_LICENCE));
    add(node, iri('dcat', 'landingPage'), namedNode(`${baseUrl}downloads/`));
    periodQuads(add, node, x.name, x.startedAt, x.endedAt);
    add(node, iri('void', 'triples'), int(x.counts.statements));
    add(node, iri('void', 'documents'), int(x.counts.documents));
    distributionQuads(
      add,
      node,
      x.name,
      x.files,
      (f) => `${expansionIri(baseUrl, x.name)}/${encodeURIComponent(f.name)}`,
    );
  }
  return out;
}

/** The quads as Turtle with the usual prefixes (declared first). */
function toTurtle(quads: readonly Quad[]): Promise<string> {
  const writer = new Writer({ prefixes: { ...NS } });
  writer.addQuads([...quads]);
  return new Promise((resolve, reject) =>
    writer.end((error, text) => (error ? reject(error) : resolve(text))),
  );
}

/**
 * One part of the description as text: its Turtle statements (without the prefix declarations,
 * which `DescriptionWriter` writes once) and its JSON-LD node objects, indented for `@graph`.
 */
export interface DescriptionPart {
  readonly turtle: string;
  readonly jsonld: string;
}

export async function describePart(quads: readonly Quad[]): Promise<DescriptionPart> {
  return {
    turtle: (await toTurtle(quads)).slice((await toTurtle([])).length),
    jsonld: jsonLdNodes(quads)
      .map((node) => `    ${JSON.stringify(node, null, 2).replaceAll('\n', '\n    ')}`)
      .join(',\n'),
  };
}

/**
 * The description as Turtle and as compact JSON-LD (the same prefixes as context), written part
 * by part: the whole description of ten years of snapshots is 150 MB of text, never held at once.
 */
export class DescriptionWriter {
  private parts = 0;
  private readonly turtle: FileHandle;
  private readonly jsonld: FileHandle;
  private constructor(turtle: FileHandle, jsonld: FileHandle) {
    this.turtle = turtle;
    this.jsonld = jsonld;
  }

  static async open(turtlePath: string, jsonldPath: string): Promise<DescriptionWriter> {
    const writer = new DescriptionWriter(await open(turtlePath, 'w'), await open(jsonldPath, 'w'));
    await writer.turtle.write(await toTurtle([]));
    const context = JSON.stringify({ ...NS }, null, 2).replaceAll('\n', '\n  ');
    await writer.jsonld.write(`{\n  "@context": ${context},\n  "@graph": [\n`);
    return writer;
  }

  async write(part: DescriptionPart): Promise<void> {
    await this.turtle.write(part.turtle);
    if (part.jsonld !== '') await this.jsonld.write(`${this.parts++ > 0 ? ',\n' : ''}${part.jsonld}`);
  }

  async close(): Promise<void> {
    await this.jsonld.write('\n  ]\n}\n');
    await Promise.all([this.turtle.close(), this.jsonld.close()]);
  }
}

/** The quads as JSON-LD node objects: one per subject in the order of the quads, full IRIs as `@id`s. */
function jsonLdNodes(quads: readonly Quad[]): Record<string, unknown>[] {
  const nodes = new Map<string, Record<string, unknown>>();
  const id = (term: Quad['subject'] | Quad_Object) =>
    term.termType === 'BlankNode' ? `_:${term.value}` : term.value;
  const compact = (iri: string) => {
    for (const [prefix, ns] of Object.entries(NS))
      if (iri.startsWith(ns) && /^[A-Za-z_][\w-]*$/.test(iri.slice(ns.length)))
        return `${prefix}:${iri.slice(ns.length)}`;
    return iri;
  };
  const value = (o: Quad_Object): unknown => {
    if (o.termType !== 'Literal') return { '@id': id(o) };
    if (o.language) return { '@value': o.value, '@language': o.language };
    if (o.datatype.value === `${NS.xsd}string`) return o.value;
    return { '@value': o.value, '@type': compact(o.datatype.value) };
  };
  for (const q of quads) {
    const key = id(q.subject);
    const node = nodes.get(key) ?? { '@id': key };
    nodes.set(key, node);
    const isType = q.predicate.value === `${NS.rdf}type`;
    const property = isType ? '@type' : compact(q.predicate.value);
    const object = isType ? compact(q.object.value) : value(q.object);
    const had = node[property];
    if (had === undefined) node[property] = object;
    else if (Array.isArray(had)) had.push(object);
    else node[property] = [had, object];
  }
  return [...nodes.values()];
}
