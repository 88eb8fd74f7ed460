/**
 * The bulk of a large document: parts of its main subject (`<doc>#part-i`: the sections, records
 * and observations big Linked Data pages list), each typed, labelled, described by a literal of
 * realistic length, with a value, sometimes an address (a blank node) and sometimes a link to
 * another document of the Web. Exactly `count` statements, all distinct from each other and from
 * the document's core (every one has a part, or a part's blank node, as subject, or
 * `dcterms:hasPart` as predicate), so every syntax yields the promised count.
 *
 * Parts are stable across versions except a few values (2% of parts, and always the first), so a
 * real change alters a few statements of a large document, as on the real Web. Part IRIs share
 * the document's URL, so they add no URI to the frontier; links to other documents are bounded
 * (every third part, at most 1,000 a document, far below the crawler's 10,000 links a document).
 */
import { DataFactory, type Quad } from 'n3';
import type { DocAddress } from './documents.ts';
import { docAddress } from './documents.ts';
import type { DocVersion } from './dynamics.ts';
import { hash32, type RandomStream, randomStream } from './random.ts';
import { labelFor } from './resource-names.ts';
import { LINK_PREDICATES, TYPES, t, XSD } from './statement-terms.ts';
import { type GeneratedWeb, pldBySize } from './web-shape.ts';

const { namedNode, blankNode, literal, quad } = DataFactory;

/** Where statements go (the graph builder of graph.ts). */
export interface StatementSink {
  push(q: Quad): void;
}

const LINK_EVERY = 3;
const MAX_LINKS = 1000;
const ADDRESS_EVERY = 8;
const VOLATILE_SHARE = 0.02;
const WORDS = [
  'record',
  'observed',
  'station',
  'measurement',
  'archive',
  'collection',
  'linked',
  'described',
  'catalogued',
  'edition',
  'source',
  'revised',
  'section',
  'population',
  'café',
  'naïve',
  'Zürich',
  'data',
  'dataset',
  'of',
  'the',
  'and',
  'in',
];
const decimal = namedNode(`${XSD}decimal`);
const date = namedNode(`${XSD}date`);
const [hasPart, type, label_, description, value, created, hasAddress, locality] = [
  'dcterms:hasPart',
  'rdf:type',
  'rdfs:label',
  'dcterms:description',
  'rdf:value',
  'dcterms:created',
  'vcard:hasAddress',
  'vcard:locality',
].map(t);
const types = TYPES.map(t);
const linkPredicates = LINK_PREDICATES.map(t);

/** A document of the Web a part links to: mostly within the PLD, else a big PLD's (preferential attachment). */
function linkTarget(web: GeneratedWeb, a: DocAddress, r: RandomStream): string {
  const p = r.next() < 0.6 ? a.pld : pldBySize(web, r.next());
  return docAddress(web, p.docStart + Math.floor(p.docCount * r.next() ** 2)).entity;
}

/** Adds `count` statements about parts of document `a` at `version` to `g`. */
export function addParts(
  g: StatementSink,
  web: GeneratedWeb,
  a: DocAddress,
  version: DocVersion,
  count: number,
): void {
  const r = randomStream(web.key, a.doc, 0x9a27);
  const e = namedNode(a.entity);
  const label = labelFor(a.name, 'en');
  const placeDe = labelFor(a.name, 'de');
  const statements: Quad[] = [];
  let left = count;
  for (let i = 0; left > 0; i++) {
    const part = namedNode(`${a.docUrl}#part-${i}`);
    const volatile = r.next() < VOLATILE_SHARE || i === 0;
    const cents = volatile ? hash32(web.key, a.doc, i, version.real) : Math.floor(r.next() * 2 ** 32);
    let text = `${label}, part ${i}:`;
    for (let w = 3 + Math.min(120, Math.floor(r.exponential(10))); w > 0; w--) text += ` ${r.pick(WORDS)}`;
    statements.length = 0;
    statements.push(
      quad(e, hasPart, part),
      quad(part, type, r.pick(types)),
      quad(part, label_, literal(`${label} ${i + 1}`, 'en')),
      quad(part, description, literal(`${text}.`, 'en')),
      quad(part, value, literal(((cents % 10_000_000) / 100).toFixed(2), decimal)),
    );
    if (i % 2 === 1) {
      const year = 1950 + r.int(75);
      statements.push(quad(part, created, literal(`${year}-0${1 + r.int(9)}-1${r.int(10)}`, date)));
    }
    if (i % LINK_EVERY === 1 && i < LINK_EVERY * MAX_LINKS)
      statements.push(quad(part, r.pick(linkPredicates), namedNode(linkTarget(web, a, r))));
    if (i % ADDRESS_EVERY === 7) {
      const addr = blankNode(`p${version.all}n${a.doc % 1000}x${i}`);
      statements.push(quad(part, hasAddress, addr), quad(addr, locality, literal(placeDe, 'de')));
    }
    for (const q of statements) {
      if (left === 0) break;
      g.push(q);
      left--;
    }
  }
}
