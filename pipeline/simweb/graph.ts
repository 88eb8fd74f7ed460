/**
 * The RDF graph of a document at a version: a deterministic function of (seed, document,
 * version). Real versions change literals and links; every version relabels blank nodes and
 * reorders statements, which the graph (and its canonical hash) does not see. A data document is
 * a small core (about 16 statements) plus, in the `dyldo` size profile, parts (document-parts.ts).
 */
import { DataFactory, type Quad, type Quad_Object, type Quad_Subject } from 'n3';
import { addParts } from './document-parts.ts';
import type { DocumentState } from './document-state.ts';
import type { DocAddress } from './documents.ts';
import { docAddress } from './documents.ts';
import type { DocVersion } from './dynamics.ts';
import { staticLinks, versionLinks } from './links.ts';
import { randomStream } from './random.ts';
import { descriptionFor, labelFor } from './resource-names.ts';
import { LANGS, LINK_PREDICATES, TYPES, t, XSD } from './statement-terms.ts';
import { groupBySubject } from './subject-groups.ts';
import type { GeneratedWeb } from './web-shape.ts';

const { namedNode, blankNode, literal, quad } = DataFactory;

/** Collects statements without duplicates, so that every syntax yields exactly this many. */
class GraphBuilder {
  readonly quads: Quad[] = [];
  readonly #seen = new Set<string>();
  add(s: Quad_Subject, p: string, o: Quad_Object): void {
    const q = quad(s, t(p), o);
    const k = `${s.termType}${s.value} ${q.predicate.value} ${o.termType}${o.value}${o.termType === 'Literal' ? `@${o.language}^${o.datatype.value}` : ''}`;
    if (this.#seen.has(k)) return;
    this.#seen.add(k);
    this.quads.push(q);
  }
  /** Adds a statement known to be distinct from all others (a large document's parts): no lookup. */
  push(q: Quad): void {
    this.quads.push(q);
  }
}

/** Shuffles statements by subject groups, then within groups: what a cosmetic change does. */
function reorder(quads: Quad[], seedParts: number[]): Quad[] {
  const r = randomStream(...seedParts);
  const list = groupBySubject(quads);
  for (const g of [list, ...list]) {
    for (let i = g.length - 1; i > 0; i--) {
      const j = r.int(i + 1);
      [g[i], g[j]] = [g[j], g[i]];
    }
  }
  return list.flat();
}

function vocabularyGraph(a: DocAddress): Quad[] {
  const v = a.vocabulary!;
  const g = new GraphBuilder();
  const onto = namedNode(a.entity);
  g.add(onto, 'rdf:type', t('owl:Ontology'));
  g.add(onto, 'dcterms:title', literal(v.title, 'en'));
  g.add(onto, 'dcterms:modified', literal('2014-01-14', namedNode(`${XSD}date`)));
  for (const c of v.classes) {
    const s = namedNode(v.namespace + c);
    g.add(s, 'rdf:type', t('rdfs:Class'));
    g.add(s, 'rdfs:label', literal(c, 'en'));
    g.add(s, 'rdfs:isDefinedBy', onto);
  }
  for (const p of v.properties) {
    const s = namedNode(v.namespace + p);
    g.add(s, 'rdf:type', t('rdf:Property'));
    g.add(s, 'rdfs:label', literal(p.replaceAll('_', ' '), 'en'));
    g.add(s, 'rdfs:comment', literal(`The ${p} property of ${v.title}.`, 'en'));
    g.add(s, 'rdfs:isDefinedBy', onto);
  }
  return g.quads;
}

/** The core statements of data document `a.doc` at `version`, in generation order. */
function coreGraph(web: GeneratedWeb, a: DocAddress, version: DocVersion, stamped: boolean): GraphBuilder {
  const k = web.key;
  const r = randomStream(k, a.doc, 0x6a);
  const g = new GraphBuilder();
  const e = namedNode(a.entity);
  const docNode = namedNode(a.docUrl);
  if (a.docUrl !== a.entity) g.add(docNode, 'foaf:primaryTopic', e);
  g.add(e, 'rdf:type', t(r.pick(TYPES)));
  if (r.next() < 0.3) g.add(e, 'rdf:type', t(r.pick(TYPES)));
  g.add(e, 'rdfs:label', literal(labelFor(a.name, 'en'), 'en'));
  if (r.next() < 0.5) {
    const lang = r.pick(LANGS);
    g.add(e, 'rdfs:label', literal(labelFor(a.name, lang), lang));
  }
  g.add(e, r.next() < 0.5 ? 'foaf:name' : 'dcterms:title', literal(labelFor(a.name, 'en')));
  const year = 1990 + r.int(35);
  const date = `${year}-${String(1 + r.int(12)).padStart(2, '0')}-${String(1 + r.int(28)).padStart(2, '0')}`;
  g.add(e, 'dcterms:created', literal(date, namedNode(`${XSD}date`)));
  if (r.next() < 0.4) {
    g.add(e, 'geo:lat', literal((r.next() * 180 - 90).toFixed(4), namedNode(`${XSD}decimal`)));
    g.add(e, 'geo:long', literal((r.next() * 360 - 180).toFixed(4), namedNode(`${XSD}decimal`)));
  }
  g.add(e, 'void:triples', literal(String(r.int(100_000)), namedNode(`${XSD}integer`)));
  if (r.next() < 0.1)
    g.add(e, 'skos:notation', literal(`C-${r.int(1000)}`, namedNode(`http://${a.host}/ns#code`)));
  const hasAddress = r.next() < 0.7;
  const bnodeSalt = `b${version.all}n${a.doc % 1000}x`;
  if (hasAddress) {
    const addr = blankNode(`${bnodeSalt}0`);
    g.add(e, 'vcard:hasAddress', addr);
    g.add(addr, 'rdf:type', t('vcard:Address'));
    g.add(addr, 'vcard:locality', literal(labelFor(a.name, 'en'), 'de'));
    g.add(addr, 'vcard:postal-code', literal(String(1000 + r.int(9000))));
    if (r.next() < 0.5) {
      const geo = blankNode(`${bnodeSalt}1`);
      g.add(addr, 'geo:location', geo);
      g.add(geo, 'rdf:type', t('geo:Point'));
    }
  }
  for (const d of staticLinks(web, a.doc))
    g.add(e, r.pick(LINK_PREDICATES), namedNode(docAddress(web, d).entity));
  g.add(e, 'dcterms:description', literal(descriptionFor(k, a.doc, version.real), 'en'));
  for (const d of versionLinks(web, a.doc, version.real))
    g.add(e, 'skos:related', namedNode(docAddress(web, d).entity));
  if (stamped)
    g.add(
      docNode,
      'dcterms:modified',
      literal(new Date(version.stampedAt).toISOString(), namedNode(`${XSD}dateTime`)),
    );
  return g;
}

/** The statements of document `state` at `version`, in the order a serializer should write them. */
export function documentGraph(web: GeneratedWeb, state: DocumentState, version: DocVersion): Quad[] {
  const a = state.address;
  if (a.vocabulary) return vocabularyGraph(a);
  const g = coreGraph(web, a, version, state.process.stamped);
  addParts(g, web, a, version, state.extraStatements);
  return reorder(g.quads, [web.key, a.doc, version.all, 0x5e]);
}

/** How many statements `documentGraph` yields, without generating a large document's parts. */
export function statementCount(web: GeneratedWeb, state: DocumentState, version: DocVersion): number {
  const a = state.address;
  if (a.vocabulary) return vocabularyGraph(a).length;
  return coreGraph(web, a, version, state.process.stamped).quads.length + state.extraStatements;
}
