/**
 * Bodies of the scenario catalogue: one fixed small graph (blank nodes, language tags, datatypes,
 * non-ASCII IRIs and literals) written in any syntax, plus the deliberately broken variants.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { DataFactory, type Quad } from 'n3';
import type { RdfFormat } from '../core/index.ts';
import { serialize } from './serialize.ts';
import { term } from './vocabularies.ts';

const { namedNode, blankNode, literal, quad } = DataFactory;
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** The catalogue's graph for a document at `url`; always FIXTURE_STATEMENTS statements. */
export function fixtureGraph(url: string): Quad[] {
  const doc = namedNode(url);
  const thing = namedNode(`${url}#it`);
  const city = namedNode('http://www.formats-lab.org/place/Zürich');
  const addr = blankNode('addr1');
  return [
    quad(doc, namedNode(term('foaf', 'primaryTopic')), thing),
    quad(thing, namedNode(term('rdf', 'type')), namedNode(term('foaf', 'Person'))),
    quad(thing, namedNode(term('foaf', 'name')), literal('Zoë Ångström')),
    quad(thing, namedNode(term('rdfs', 'label')), literal('Zoë', 'en')),
    quad(thing, namedNode(term('rdfs', 'label')), literal('Ζωή', 'el')),
    quad(thing, namedNode(term('dcterms', 'created')), literal('2021-03-04', namedNode(`${XSD}date`))),
    quad(thing, namedNode(term('void', 'triples')), literal('42', namedNode(`${XSD}integer`))),
    quad(thing, namedNode(term('foaf', 'based_near')), city),
    quad(thing, namedNode(term('owl', 'sameAs')), namedNode('http://dbpedia.org/resource/São_Paulo_1')),
    quad(thing, namedNode(term('vcard', 'hasAddress')), addr),
    quad(addr, namedNode(term('vcard', 'locality')), literal('東京', 'ja')),
    quad(addr, namedNode(term('vcard', 'postal-code')), literal('100-0001')),
  ];
}

export const FIXTURE_STATEMENTS = fixtureGraph('http://x.example/').length;
/** Statements a broken document carries before its syntax error (JSON-LD: none, JSON fails as a whole). */
export const BROKEN_PREFIX_STATEMENTS = 5;

/** The fixture graph at `url` in `format`. */
export function fixtureBody(url: string, format: RdfFormat, latin1 = false): Buffer {
  return serialize(fixtureGraph(url), format, url, { latin1 }).body;
}

const GARBAGE: Partial<Record<RdfFormat, string>> = {
  rdfxml: '  <rdf:Description rdf:about="http://www.formats-lab.org/x"><<< not XML\n</rdf:RDF>\n',
  jsonld: '',
};

/** The fixture's first statements in `format`, then a syntax error. */
export function brokenBody(url: string, format: RdfFormat): Buffer {
  const text = serialize(fixtureGraph(url).slice(0, BROKEN_PREFIX_STATEMENTS), format, url).body.toString();
  if (format === 'rdfxml') return Buffer.from(text.replace('</rdf:RDF>\n', GARBAGE.rdfxml!));
  if (format === 'jsonld') return Buffer.from(text.slice(0, Math.floor(text.length / 2)));
  return Buffer.from(`${text}\n<http://www.formats-lab.org/broken> <unterminated "oops .\n`);
}

/** N-Triples of an IRI that is not an IRI (a space inside) after the fixture's first statements. */
export function invalidIriBody(url: string): Buffer {
  const text = serialize(
    fixtureGraph(url).slice(0, BROKEN_PREFIX_STATEMENTS),
    'ntriples',
    url,
  ).body.toString();
  return Buffer.from(
    `${text}<http://www.formats-lab.org/a b> <http://xmlns.com/foaf/0.1/name> "bad IRI" .\n`,
  );
}

/** Decompressed size of the bombs: far beyond any sane response size limit (32 MiB by default). */
export const BOMB_BYTES = 128 * 1024 * 1024;
let gzipBomb: Buffer | undefined;
let brBomb: Buffer | undefined;

/** A small gzip body that inflates to BOMB_BYTES (built once, on first use: about half a second). */
export function gzipBombBody(): Buffer {
  gzipBomb ??= gzipSync(Buffer.alloc(BOMB_BYTES, 0x20), { level: 9 });
  return gzipBomb;
}

/** The brotli counterpart of gzipBombBody. */
export function brotliBombBody(): Buffer {
  brBomb ??= brotliCompressSync(Buffer.alloc(BOMB_BYTES, 0x20), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5 },
  });
  return brBomb;
}

/** Bytes of the oversized (uncompressed) document. */
export const OVERSIZED_BYTES = 40 * 1024 * 1024;
let oversized: Buffer | undefined;

/** A valid N-Triples body of OVERSIZED_BYTES (one statement repeated with distinct subjects). */
export function oversizedBody(): Buffer {
  if (!oversized) {
    const line = (i: number) =>
      `<http://www.formats-lab.org/big/s${String(i).padStart(9, '0')}> <http://xmlns.com/foaf/0.1/name> "x" .\n`;
    const size = Buffer.byteLength(line(0));
    oversized = Buffer.alloc(OVERSIZED_BYTES - (OVERSIZED_BYTES % size));
    for (let i = 0, off = 0; off < oversized.length; i++, off += size) oversized.write(line(i), off);
  }
  return oversized;
}
