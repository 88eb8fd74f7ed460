import type { RdfFormat } from '../core/index.ts';

/** How far into a document the sniffer looks, in characters. */
export const SNIFF_CHARS = 4096;
const RDF_NAMESPACE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
/** Markup starts with `<?`, `<!` or an element name (possibly prefixed) then space, `/` or `>`. */
const MARKUP_START = /^<(?:[?!]|[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?[\s/>])/;
const PROLOG = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*/i;
const TERM = String.raw`(?:<[^>\s]*>|_:\S+)`;
const LITERAL_OR_TERM = String.raw`(?:${TERM}|"(?:[^"\\]|\\.)*"(?:@[\w-]+|\^\^<[^>\s]*>)?)`;
const NTRIPLES_LINE = new RegExp(String.raw`^${TERM}\s*<[^>\s]*>\s*${LITERAL_OR_TERM}\s*\.\s*(?:#.*)?$`);
const NQUADS_LINE = new RegExp(
  String.raw`^${TERM}\s*<[^>\s]*>\s*${LITERAL_OR_TERM}\s*${TERM}\s*\.\s*(?:#.*)?$`,
);

/**
 * The syntaxes a text may be in, most likely first, from its first characters only:
 * - markup (`<?xml`, `<!DOCTYPE`, `<tag`): RDFa first when the root element is `html` or the
 *   RDF namespace is absent, RDF/XML first when the root is `rdf:RDF` or the RDF namespace is
 *   declared; RDF/XML is a candidate only when the RDF namespace appears in the head, so that
 *   other XML (Atom, SVG) is not read as striped RDF/XML by accident;
 * - `{` or `[`: JSON-LD, then the Turtle family (`[]` subjects, TriG and N3 graph blocks);
 * - a first statement line that is a complete N-Triples or N-Quads line: that syntax, then the
 *   Turtle family;
 * - anything else: Turtle, TriG, N3 (each a superset of the one before, nearly).
 */
export function sniffFormats(text: string): RdfFormat[] {
  const head = text.slice(0, SNIFF_CHARS).trimStart();
  if (MARKUP_START.test(head)) return markupFormats(head);
  if (head.startsWith('{')) return ['jsonld', 'trig', 'n3'];
  if (head.startsWith('[')) return ['jsonld', 'turtle', 'trig', 'n3'];
  const line = firstStatementLine(head);
  if (NQUADS_LINE.test(line)) return ['nquads', 'trig', 'n3'];
  if (NTRIPLES_LINE.test(line)) return ['ntriples', 'nquads', 'turtle', 'trig', 'n3'];
  return ['turtle', 'trig', 'n3'];
}

function markupFormats(head: string): RdfFormat[] {
  const rest = head.slice(PROLOG.exec(head)?.[0].length ?? 0);
  const root = /^<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/.exec(rest);
  const local = root?.[2] ?? '';
  const doctypeHtml = /<!DOCTYPE\s+html/i.test(head);
  if (local.toLowerCase() === 'html' || doctypeHtml) return ['rdfa'];
  if (local === 'RDF' || head.includes(RDF_NAMESPACE)) return ['rdfxml', 'rdfa'];
  return ['rdfa'];
}

function firstStatementLine(head: string): string {
  for (const raw of head.split('\n')) {
    const line = raw.trim();
    if (line !== '' && !line.startsWith('#')) return line;
  }
  return '';
}
