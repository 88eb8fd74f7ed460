import type { Statement } from '../core/index.ts';

// Stand-in for pipeline/rdf's N-Quads writer until its public entry lands; same output rules:
// N-Quads 1.1 canonical escapes, xsd:string implicit, rdf:langString written as @lang.
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const IRI_UNSAFE = /[\u0000-\u0020<>"{}|^`\\]/;
const IRI_UNSAFE_ALL = new RegExp(IRI_UNSAFE.source, 'g');
const LITERAL_UNSAFE = /["\\\n\r]/g;
const LITERAL_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r' };

/**
 * An IRIREF. Characters N-Quads forbids in IRIs (space, controls, <>"{}|^`\) cannot be escaped
 * there, so they are percent-encoded: the only lossy step between quads.parquet and data.nq.gz.
 */
function iri(value: string): string {
  if (!IRI_UNSAFE.test(value)) return `<${value}>`;
  return `<${value.replace(IRI_UNSAFE_ALL, (c) => encodeURIComponent(c))}>`;
}

function resource(value: string): string {
  return value.startsWith('_:') ? value : iri(value);
}

function literal(value: string, datatype: string | null, lang: string | null): string {
  const text = `"${value.replace(LITERAL_UNSAFE, (c) => LITERAL_ESCAPES[c])}"`;
  if (lang) return `${text}@${lang}`;
  return datatype && datatype !== XSD_STRING ? `${text}^^${iri(datatype)}` : text;
}

/** One N-Quads line (with its newline) for a statement in graph `graph`. */
export function nquadsLine(s: Statement, graph: string): string {
  const object = s.objectKind === 'literal' ? literal(s.object, s.datatype, s.lang) : resource(s.object);
  return `${resource(s.subject)} ${iri(s.predicate)} ${object} ${iri(graph)} .\n`;
}
