/**
 * JSON-LD output with an inline context only (a remote context would send the crawler to a
 * host outside the simulated Web). Node objects per subject, compact IRIs where a prefix fits.
 */
import type { Quad } from 'n3';
import { compact, PREFIXES } from './prefixes.ts';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

function short(iri: string): string {
  const c = compact(iri);
  return c ? `${c.prefix}:${c.local}` : iri;
}

type JsonValue = string | Record<string, string>;

/** Serializes statements (graph ignored) as JSON-LD. */
export function writeJsonLd(quads: readonly Quad[]): Buffer {
  const nodes = new Map<string, Record<string, JsonValue | JsonValue[]>>();
  for (const q of quads) {
    const id = q.subject.termType === 'BlankNode' ? `_:${q.subject.value}` : q.subject.value;
    let node = nodes.get(id);
    if (!node) {
      node = { '@id': id };
      nodes.set(id, node);
    }
    const o = q.object;
    let key: string;
    let value: JsonValue;
    if (q.predicate.value === RDF_TYPE && o.termType === 'NamedNode') {
      key = '@type';
      value = short(o.value);
    } else {
      key = short(q.predicate.value);
      if (o.termType === 'NamedNode') value = { '@id': o.value };
      else if (o.termType === 'BlankNode') value = { '@id': `_:${o.value}` };
      else if (o.termType === 'Literal' && o.language) value = { '@value': o.value, '@language': o.language };
      else if (o.termType === 'Literal' && o.datatype.value !== XSD_STRING)
        value = { '@value': o.value, '@type': o.datatype.value };
      else value = o.value;
    }
    const prev = node[key];
    node[key] = prev === undefined ? [value] : [...(prev as JsonValue[]), value];
  }
  const doc = { '@context': PREFIXES, '@graph': [...nodes.values()] };
  return Buffer.from(`${JSON.stringify(doc, null, 1)}\n`);
}
