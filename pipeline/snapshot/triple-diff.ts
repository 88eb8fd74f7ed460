import { createRequire } from 'node:module';
import type { Statement } from '../core/index.ts';
import { nquadsLine } from './nquads-serialise.ts';

interface Term {
  termType: 'NamedNode' | 'BlankNode' | 'Literal' | 'DefaultGraph';
  value: string;
  datatype?: { termType: 'NamedNode'; value: string };
  language?: string;
}
interface Canonize {
  _canonizeSync(
    dataset: Array<{ subject: Term; predicate: Term; object: Term; graph: Term }>,
    options: { algorithm: 'RDFC-1.0'; format: 'application/n-quads'; maxWorkFactor?: number },
  ): string;
}

const canonize = createRequire(import.meta.url)('rdf-canonize') as Canonize;
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const DEFAULT_GRAPH: Term = { termType: 'DefaultGraph', value: '' };
// graph name used only to form comparison keys; never written anywhere
const KEY_GRAPH = 'urn:x-observatory:diff';

/** How many triples one version of a document has that the other lacks. */
export interface TripleDiff {
  readonly added: number;
  readonly removed: number;
}

function resourceTerm(value: string): Term {
  return value.startsWith('_:')
    ? { termType: 'BlankNode', value: value.slice(2) }
    : { termType: 'NamedNode', value };
}

function objectTerm(s: Statement): Term {
  if (s.objectKind !== 'literal') return resourceTerm(s.object);
  return {
    termType: 'Literal',
    value: s.object,
    datatype: { termType: 'NamedNode', value: s.datatype ?? XSD_STRING },
    language: s.lang ?? '',
  };
}

const hasBlank = (s: Statement) => s.subject.startsWith('_:') || s.objectKind === 'bnode';

/**
 * The triples of a graph as comparable strings. Graphs with blank nodes are relabelled by RDFC-1.0
 * first, so a relabelling is no difference; when canonicalisation gives up (a pathological graph)
 * every blank node becomes the same label, which can undercount but never invents differences.
 */
function tripleKeys(statements: readonly Statement[], withBlanks: boolean): Set<string> {
  if (!withBlanks) return new Set(statements.map((s) => nquadsLine(s, KEY_GRAPH)));
  const dataset = statements.map((s) => ({
    subject: resourceTerm(s.subject),
    predicate: resourceTerm(s.predicate),
    object: objectTerm(s),
    graph: DEFAULT_GRAPH,
  }));
  try {
    const lines = canonize._canonizeSync(dataset, { algorithm: 'RDFC-1.0', format: 'application/n-quads' });
    return new Set(lines.split('\n').filter((line) => line !== ''));
  } catch {
    return new Set(statements.map((s) => nquadsLine(s, KEY_GRAPH).replace(/_:\S+/g, '_:b')));
  }
}

/**
 * Triples added and removed between two observations of a document. Blank-node aware: both versions
 * are relabelled canonically (RDFC-1.0) when either has blank nodes. Canonical labels depend on the
 * whole graph, so an edit next to blank nodes can relabel others and count them as changed too; the
 * counts are then an upper bound.
 */
export function diffTriples(before: readonly Statement[], after: readonly Statement[]): TripleDiff {
  const withBlanks = before.some(hasBlank) || after.some(hasBlank);
  const old = tripleKeys(before, withBlanks);
  const now = tripleKeys(after, withBlanks);
  let added = 0;
  for (const key of now) if (!old.has(key)) added++;
  let removed = 0;
  for (const key of old) if (!now.has(key)) removed++;
  return { added, removed };
}
