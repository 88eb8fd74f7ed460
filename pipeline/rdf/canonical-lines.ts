import { createHash } from 'node:crypto';
import rdfCanonize from 'rdf-canonize';
import type { Statement } from '../core/index.ts';
import { ntriplesLine } from './nquads-writer.ts';
import { XSD_STRING } from './rdf-terms.ts';

/**
 * How blank nodes were given canonical labels:
 * - `exact`: the graph has none, nothing to do;
 * - `rdfc1`: RDFC-1.0 (rdf-canonize), exact up to isomorphism;
 * - `fallback`: RDFC-1.0 gave up on a pathological graph (its deep-iteration limit, or the time
 *   limit); each blank node is labelled by a hash of its neighbourhood (two rounds of colour
 *   refinement). Still invariant under relabelling and reordering, but two different graphs that
 *   only differ in how indistinguishable blank nodes are wired can get the same labels.
 */
export type CanonicalMethod = 'exact' | 'rdfc1' | 'fallback';

/**
 * Bounds on RDFC-1.0 work per document: at most n² deep iterations for n blank nodes, never more
 * than DEEP_ITERATION_CAP, and wall-clock time. The cap is what bounds a chain of blank nodes
 * (nested lists or `[ ]`): there every step has one related node, rdf-canonize never reaches its
 * abort-signal check (made every third permutation), and each of the n² iterations copies an
 * issuer of size n, so 1,000 nested lists ran for minutes past the time limit.
 */
const DEEP_ITERATION_CAP = 1_000;
const CANONIZE_TIMEOUT_MS = 5_000;

/** A graph as sorted, deduplicated N-Triples lines with canonical blank-node labels. */
export interface CanonicalGraph {
  readonly method: CanonicalMethod;
  readonly lines: readonly string[];
}

function isBlank(term: string): boolean {
  return term.charCodeAt(0) === 0x5f && term.charCodeAt(1) === 0x3a;
}

/**
 * The graph's sorted, deduplicated lines once its blank nodes are relabelled; `lines[i]` is the
 * line of `statements[i]`, kept for every statement without a blank node.
 */
function relabel(
  statements: readonly Statement[],
  lines: readonly string[],
  label: (blank: string) => string,
): string[] {
  const relabelled = statements.map((s, i) => {
    const subject = isBlank(s.subject) ? label(s.subject) : s.subject;
    const object = s.objectKind === 'bnode' ? label(s.object) : s.object;
    return subject === s.subject && object === s.object ? lines[i] : ntriplesLine({ ...s, subject, object });
  });
  return [...new Set(relabelled)].sort();
}

function rdfjsTerm(term: string, kind: 'iri' | 'bnode') {
  return kind === 'bnode'
    ? { termType: 'BlankNode', value: term.slice(2) }
    : { termType: 'NamedNode', value: term };
}

function blankNodeCount(statements: readonly Statement[]): number {
  const blanks = new Set<string>();
  for (const s of statements) {
    if (isBlank(s.subject)) blanks.add(s.subject);
    if (s.objectKind === 'bnode') blanks.add(s.object);
  }
  return blanks.size;
}

async function rdfcLabels(statements: readonly Statement[]): Promise<Map<string, string> | null> {
  const dataset = statements.map((s) => ({
    subject: rdfjsTerm(s.subject, isBlank(s.subject) ? 'bnode' : 'iri'),
    predicate: { termType: 'NamedNode', value: s.predicate },
    object:
      s.objectKind === 'literal'
        ? {
            termType: 'Literal',
            value: s.object,
            language: s.lang ?? '',
            datatype: { termType: 'NamedNode', value: s.datatype ?? XSD_STRING },
          }
        : rdfjsTerm(s.object, s.objectKind),
    graph: { termType: 'DefaultGraph', value: '' },
  }));
  const canonicalIdMap = new Map<string, string>();
  try {
    await rdfCanonize.canonize(dataset, {
      algorithm: 'RDFC-1.0',
      maxDeepIterations: Math.min(blankNodeCount(statements) ** 2, DEEP_ITERATION_CAP),
      signal: AbortSignal.timeout(CANONIZE_TIMEOUT_MS),
      canonicalIdMap,
    });
  } catch {
    return null;
  }
  return canonicalIdMap;
}

/** Colour refinement: a blank node's label is a hash of the lines it occurs in, refined twice. */
function neighbourhoodLabels(statements: readonly Statement[]): Map<string, string> {
  let colours = new Map<string, string>();
  for (const s of statements) {
    if (isBlank(s.subject)) colours.set(s.subject, '');
    if (s.objectKind === 'bnode') colours.set(s.object, '');
  }
  for (let round = 0; round < 2; round++) {
    const signatures = new Map<string, string[]>();
    for (const blank of colours.keys()) signatures.set(blank, []);
    for (const s of statements) {
      const subject = isBlank(s.subject) ? `_:${colours.get(s.subject)}` : s.subject;
      const object = s.objectKind === 'bnode' ? `_:${colours.get(s.object)}` : s.object;
      const line = `${s.predicate} ${object} ${s.datatype ?? ''} ${s.lang ?? ''}`;
      if (isBlank(s.subject)) signatures.get(s.subject)!.push(`>${line}`);
      if (s.objectKind === 'bnode') signatures.get(s.object)!.push(`<${subject} ${s.predicate}`);
    }
    const next = new Map<string, string>();
    for (const [blank, lines] of signatures) {
      const digest = createHash('sha256').update(colours.get(blank)!).update(lines.sort().join('\n'));
      next.set(blank, `f${digest.digest('hex').slice(0, 16)}`);
    }
    colours = next;
  }
  return new Map([...colours].map(([blank, colour]) => [blank, `_:${colour}`]));
}

/**
 * The statements without repeats, with their lines: a graph is a set, and RDFC-1.0 would count a
 * repeat twice. The lines are kept for relabel, which would otherwise write most of them again.
 */
function distinct(input: readonly Statement[]): { statements: Statement[]; lines: string[] } {
  const seen = new Set<string>();
  const statements: Statement[] = [];
  const lines: string[] = [];
  for (const s of input) {
    const line = ntriplesLine(s);
    if (seen.has(line)) continue;
    seen.add(line);
    statements.push(s);
    lines.push(line);
  }
  return { statements, lines };
}

/** The canonical form of a graph (see CanonicalMethod); the basis of graph hashes and diffs. */
export async function canonicalGraph(input: readonly Statement[]): Promise<CanonicalGraph> {
  const { statements, lines } = distinct(input);
  if (!statements.some((s) => isBlank(s.subject) || s.objectKind === 'bnode')) {
    return { method: 'exact', lines: relabel(statements, lines, (b) => b) };
  }
  // RDFC-1.0 labels a blank node from the statements that mention blank nodes only, so the others
  // (most of a large document) are left out of its dataset, which holds several objects per quad
  const rdfc = await rdfcLabels(statements.filter((s) => isBlank(s.subject) || s.objectKind === 'bnode'));
  if (rdfc) return { method: 'rdfc1', lines: relabel(statements, lines, (b) => `_:${rdfc.get(b.slice(2))}`) };
  const fallback = neighbourhoodLabels(statements);
  return { method: 'fallback', lines: relabel(statements, lines, (b) => fallback.get(b)!) };
}
