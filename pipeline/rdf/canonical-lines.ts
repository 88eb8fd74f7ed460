import { createHash } from 'node:crypto';
import rdfCanonize from 'rdf-canonize';
import type { Statement } from '../core/index.ts';
import { statementLine } from './nquads-writer.ts';
import { RDF_LANG_STRING, XSD_STRING } from './rdf-terms.ts';
import { blankNodesOf, hasBlankNode, partsOf, relabelTripleTerm } from './triple-term.ts';

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

/**
 * A graph as sorted, deduplicated lines with canonical blank-node labels: N-Triples 1.2 lines, and
 * N-Quads lines for statements in the publisher's named graphs (statementLine).
 */
export interface CanonicalGraph {
  readonly method: CanonicalMethod;
  readonly lines: readonly string[];
}

function isBlank(term: string): boolean {
  return term.charCodeAt(0) === 0x5f && term.charCodeAt(1) === 0x3a;
}

/** Whether a statement mentions a blank node: subject, object, inside a triple term, graph name. */
function mentionsBlank(s: Statement): boolean {
  return (
    isBlank(s.subject) ||
    s.objectKind === 'bnode' ||
    (s.objectKind === 'triple' && hasBlankNode(s.object)) ||
    (s.sourceGraph !== undefined && isBlank(s.sourceGraph))
  );
}

/** The statement with its blank nodes relabelled; the statement itself when it mentions none. */
function relabelStatement(s: Statement, label: (blank: string) => string): Statement {
  const subject = isBlank(s.subject) ? label(s.subject) : s.subject;
  const object =
    s.objectKind === 'bnode'
      ? label(s.object)
      : s.objectKind === 'triple'
        ? relabelTripleTerm(s.object, label)
        : s.object;
  const graph = s.sourceGraph;
  const sourceGraph = graph !== undefined && isBlank(graph) ? label(graph) : graph;
  return subject === s.subject && object === s.object && sourceGraph === graph
    ? s
    : { ...s, subject, object, sourceGraph };
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
    const r = relabelStatement(s, label);
    return r === s ? lines[i] : statementLine(r);
  });
  return [...new Set(relabelled)].sort();
}

function rdfjsTerm(term: string, kind: 'iri' | 'bnode') {
  return kind === 'bnode'
    ? { termType: 'BlankNode', value: term.slice(2) }
    : { termType: 'NamedNode', value: term };
}

const named = (value: string) => ({ termType: 'NamedNode', value });
const DEFAULT_GRAPH = { termType: 'DefaultGraph', value: '' };

/**
 * rdf-canonize (5.0) implements RDFC-1.0 over RDF 1.1 datasets: it knows neither triple terms nor
 * base directions. So the dataset it is given stands in for them, keeping it a faithful image of
 * the graph (two graphs are isomorphic exactly when their images are):
 * - a directional literal is a language-tagged one whose tag ends in its direction, `en--ltr`: the
 *   N-Triples 1.2 form, so its serialisation in rdf-canonize's hashes is its own;
 * - a triple term without blank nodes is a literal of TRIPLE_TERM_TEXT holding its text (a ground
 *   term is its own canonical form);
 * - a triple term with blank nodes is a blank node of its own, one per distinct term (its text),
 *   with three quads in TRIPLE_TERM_GRAPH giving its subject, predicate and object through the
 *   TRIPLE_TERM_PART predicates (a nested term stands in the same way, a literal part as a literal
 *   of LITERAL_TEXT holding its N-Triples text). Its label holds a space, which no blank-node label
 *   of a document can, and only the data's blank nodes' canonical labels are used.
 * The reserved IRIs are the only assumption: a document using them in its own data could be
 * confused with another (docs/rdf.md).
 */
const RESERVED = 'urn:x-observatory:rdfc-stand-in:';
const TRIPLE_TERM_TEXT = named(`${RESERVED}triple-term`);
const LITERAL_TEXT = named(`${RESERVED}literal`);
const TRIPLE_TERM_GRAPH = named(`${RESERVED}triple-terms`);
const TRIPLE_TERM_PART = [
  named(`${RESERVED}subject`),
  named(`${RESERVED}predicate`),
  named(`${RESERVED}object`),
];

/** The RDF 1.1 dataset RDFC-1.0 canonicalises for the statements (see RESERVED), and its blank nodes. */
function rdfcDataset(statements: readonly Statement[]): { dataset: object[]; blankNodes: number } {
  const dataset: object[] = [];
  const blanks = new Set<string>();
  const standIns = new Map<string, object>();
  const resource = (term: string) => {
    if (!isBlank(term)) return named(term);
    blanks.add(term);
    return rdfjsTerm(term, 'bnode');
  };
  const tripleTerm = (text: string): object => {
    if (!hasBlankNode(text))
      return { termType: 'Literal', value: text, language: '', datatype: TRIPLE_TERM_TEXT };
    let node = standIns.get(text);
    if (node !== undefined) return node;
    node = { termType: 'BlankNode', value: `triple term ${standIns.size}` };
    standIns.set(text, node);
    // the parts as N-Triples terms: IRIs (escaped, as the text has them), labels, literals, terms
    const parts = partsOf(text).map((part) =>
      part.startsWith('<<(')
        ? tripleTerm(part)
        : part.charCodeAt(0) === 0x3c
          ? named(part.slice(1, -1))
          : isBlank(part)
            ? resource(part)
            : { termType: 'Literal', value: part, language: '', datatype: LITERAL_TEXT },
    );
    for (const [i, part] of parts.entries()) {
      dataset.push({ subject: node, predicate: TRIPLE_TERM_PART[i], object: part, graph: TRIPLE_TERM_GRAPH });
    }
    return node;
  };
  for (const s of statements) {
    let object: object;
    if (s.objectKind === 'literal') {
      const directional = s.direction !== undefined;
      object = {
        termType: 'Literal',
        value: s.object,
        language: directional ? `${s.lang}--${s.direction}` : (s.lang ?? ''),
        datatype: named(directional ? RDF_LANG_STRING : (s.datatype ?? XSD_STRING)),
      };
    } else if (s.objectKind === 'triple') object = tripleTerm(s.object);
    else object = resource(s.object);
    dataset.push({
      subject: resource(s.subject),
      predicate: named(s.predicate),
      object,
      graph: s.sourceGraph === undefined ? DEFAULT_GRAPH : resource(s.sourceGraph),
    });
  }
  return { dataset, blankNodes: blanks.size + standIns.size };
}

async function rdfcLabels(statements: readonly Statement[]): Promise<Map<string, string> | null> {
  const { dataset, blankNodes } = rdfcDataset(statements);
  const canonicalIdMap = new Map<string, string>();
  try {
    await rdfCanonize.canonize(dataset, {
      algorithm: 'RDFC-1.0',
      maxDeepIterations: Math.min(blankNodes ** 2, DEEP_ITERATION_CAP),
      signal: AbortSignal.timeout(CANONIZE_TIMEOUT_MS),
      canonicalIdMap,
    });
  } catch {
    return null;
  }
  return canonicalIdMap;
}

/**
 * Colour refinement: a blank node's label is a hash of the lines it occurs in, refined twice. The
 * signatures of statements without RDF 1.2 terms or graph names are those used before they existed,
 * so that the hashes of such graphs did not change.
 */
function neighbourhoodLabels(statements: readonly Statement[]): Map<string, string> {
  let colours = new Map<string, string>();
  for (const s of statements) {
    if (isBlank(s.subject)) colours.set(s.subject, '');
    if (s.objectKind === 'bnode') colours.set(s.object, '');
    if (s.objectKind === 'triple') for (const b of blankNodesOf(s.object)) colours.set(b, '');
    if (s.sourceGraph !== undefined && isBlank(s.sourceGraph)) colours.set(s.sourceGraph, '');
  }
  for (let round = 0; round < 2; round++) {
    const signatures = new Map<string, string[]>();
    for (const blank of colours.keys()) signatures.set(blank, []);
    const colour = (blank: string) => `_:${colours.get(blank)}`;
    for (const s of statements) {
      const subject = isBlank(s.subject) ? colour(s.subject) : s.subject;
      const object =
        s.objectKind === 'bnode'
          ? colour(s.object)
          : s.objectKind === 'triple'
            ? relabelTripleTerm(s.object, colour)
            : s.object;
      const g = s.sourceGraph;
      const graph = g === undefined ? '' : ` ${isBlank(g) ? colour(g) : g}`;
      const lang = s.direction === undefined ? (s.lang ?? '') : `${s.lang}--${s.direction}`;
      const line = `${s.predicate} ${object} ${s.datatype ?? ''} ${lang}${graph}`;
      if (isBlank(s.subject)) signatures.get(s.subject)!.push(`>${line}`);
      if (s.objectKind === 'bnode') signatures.get(s.object)!.push(`<${subject} ${s.predicate}${graph}`);
      if (s.objectKind === 'triple') {
        for (const b of new Set(blankNodesOf(s.object))) signatures.get(b)!.push(`^${subject} ${line}`);
      }
      if (g !== undefined && isBlank(g)) signatures.get(g)!.push(`@${subject} ${line}`);
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
    const line = statementLine(s);
    if (seen.has(line)) continue;
    seen.add(line);
    statements.push(s);
    lines.push(line);
  }
  return { statements, lines };
}

/** How a graph's blank nodes get their canonical labels (see CanonicalMethod). */
async function canonicalLabels(
  statements: readonly Statement[],
): Promise<{ method: CanonicalMethod; label: (blank: string) => string }> {
  if (!statements.some(mentionsBlank)) return { method: 'exact', label: (b) => b };
  // RDFC-1.0 labels a blank node from the statements that mention blank nodes only, so the others
  // (most of a large document) are left out of its dataset, which holds several objects per quad
  const rdfc = await rdfcLabels(statements.filter(mentionsBlank));
  if (rdfc) return { method: 'rdfc1', label: (b) => `_:${rdfc.get(b.slice(2))}` };
  const fallback = neighbourhoodLabels(statements);
  return { method: 'fallback', label: (b) => fallback.get(b)! };
}

/** The canonical form of a graph (see CanonicalMethod); the basis of graph hashes and diffs. */
export async function canonicalGraph(input: readonly Statement[]): Promise<CanonicalGraph> {
  const { statements, lines } = distinct(input);
  const { method, label } = await canonicalLabels(statements);
  return { method, lines: relabel(statements, lines, label) };
}

/**
 * A graph's distinct statements with canonical blank-node labels, by their canonical line: what
 * a diff lists (delta.parquet), where canonicalGraph gives the lines alone.
 */
export async function canonicalStatements(
  input: readonly Statement[],
): Promise<{ method: CanonicalMethod; byLine: Map<string, Statement> }> {
  const { statements, lines } = distinct(input);
  const { method, label } = await canonicalLabels(statements);
  const byLine = new Map<string, Statement>();
  for (const [i, s] of statements.entries()) {
    const r = relabelStatement(s, label);
    byLine.set(r === s ? lines[i] : statementLine(r), r);
  }
  return { method, byLine };
}
