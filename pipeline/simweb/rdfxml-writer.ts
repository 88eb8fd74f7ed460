/**
 * RDF/XML output, written by hand because no RDF/JS library here writes it. One
 * `rdf:Description` per subject in first-appearance order; `latin1` output declares ISO-8859-1
 * in the XML declaration and writes characters beyond it as character references.
 */
import type { Quad } from 'n3';
import { PREFIXES } from './prefixes.ts';
import { groupBySubject } from './subject-groups.ts';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

function escapeXml(text: string, latin1: boolean): string {
  const escaped = text.replace(/[&<>"]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;',
  );
  return latin1
    ? escaped.replace(/[^\u0000-\u00ff]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16)};`)
    : escaped;
}

/** Splits a predicate IRI into namespace and an XML-name local part. */
function splitPredicate(iri: string): [string, string] {
  const m = /^(.*[#/])([A-Za-z_][\w.-]*)$/.exec(iri);
  return m ? [m[1], m[2]] : [iri, ''];
}

/** Serializes statements (graph ignored) as RDF/XML. */
export function writeRdfXml(quads: readonly Quad[], latin1 = false): Buffer {
  const namespaces = new Map<string, string>(Object.entries(PREFIXES).map(([p, ns]) => [ns, p]));
  const used = new Set<string>(['rdf']);
  for (const q of quads) {
    const [ns] = splitPredicate(q.predicate.value);
    if (!namespaces.has(ns)) namespaces.set(ns, `ns${namespaces.size}`);
    used.add(namespaces.get(ns)!);
  }
  // one split per predicate, not per statement: large documents repeat a few predicates
  const names = new Map<string, string>();
  const nameOf = (iri: string) => {
    let name = names.get(iri);
    if (name === undefined) {
      const [ns, local] = splitPredicate(iri);
      name = `${namespaces.get(ns)}:${local}`;
      names.set(iri, name);
    }
    return name;
  };
  const lines: string[] = [];
  for (const list of groupBySubject(quads)) {
    const s = list[0].subject;
    const about =
      s.termType === 'BlankNode' ? `rdf:nodeID="${s.value}"` : `rdf:about="${escapeXml(s.value, latin1)}"`;
    lines.push(`  <rdf:Description ${about}>`);
    for (const q of list) {
      const name = nameOf(q.predicate.value);
      const o = q.object;
      if (o.termType === 'NamedNode')
        lines.push(`    <${name} rdf:resource="${escapeXml(o.value, latin1)}"/>`);
      else if (o.termType === 'BlankNode') lines.push(`    <${name} rdf:nodeID="${o.value}"/>`);
      else if (o.termType === 'Literal') {
        const dt = o.datatype.value;
        const attr = o.language
          ? ` xml:lang="${o.language}"`
          : dt !== XSD_STRING && dt !== RDF_LANG_STRING
            ? ` rdf:datatype="${escapeXml(dt, latin1)}"`
            : '';
        lines.push(`    <${name}${attr}>${escapeXml(o.value, latin1)}</${name}>`);
      }
    }
    lines.push('  </rdf:Description>');
  }
  const xmlns = [...namespaces]
    .filter(([, p]) => used.has(p))
    .map(([ns, p]) => `\n    xmlns:${p}="${escapeXml(ns, latin1)}"`)
    .join('');
  const text = `<?xml version="1.0" encoding="${latin1 ? 'ISO-8859-1' : 'UTF-8'}"?>\n<rdf:RDF${xmlns}>\n${lines.join('\n')}\n</rdf:RDF>\n`;
  return Buffer.from(text, latin1 ? 'latin1' : 'utf8');
}
