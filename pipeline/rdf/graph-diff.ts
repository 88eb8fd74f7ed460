import type { Statement } from '../core/index.ts';
import { type CanonicalMethod, canonicalStatements } from './canonical-lines.ts';

/**
 * What changed between two observations of a document: statements with their canonical blank-node
 * labels (`_:c14nN` from RDFC-1.0, `_:f…` from the fallback), each version labelled on its own, in
 * the order of their canonical lines.
 */
export interface GraphDiff {
  readonly added: readonly Statement[];
  readonly removed: readonly Statement[];
  /** The weaker of the two canonicalisation methods; `fallback` means the diff is approximate. */
  readonly method: CanonicalMethod;
}

const STRENGTH: Readonly<Record<CanonicalMethod, number>> = { exact: 2, rdfc1: 1, fallback: 0 };

/**
 * Triples added and removed between two statement sets, for changes.parquet and delta.parquet. Both graphs are
 * canonicalised on their own (canonicalGraph), so blank nodes whose canonical labels agree are
 * the same: relabelling or reordering gives an empty diff, and a change in an IRI-only part
 * shows as exactly that triple. A change that touches a blank node's neighbourhood changes its
 * canonical label (and with RDFC-1.0 possibly others'), so every triple of the affected blank
 * nodes shows as removed and added: a diff counts changed lines, not a minimal edit.
 */
export async function diffStatements(
  before: readonly Statement[],
  after: readonly Statement[],
): Promise<GraphDiff> {
  const [old, now] = await Promise.all([canonicalStatements(before), canonicalStatements(after)]);
  const missingFrom = (from: Map<string, Statement>, other: Map<string, Statement>) =>
    [...from.keys()]
      .filter((line) => !other.has(line))
      .sort()
      .map((line) => from.get(line)!);
  return {
    added: missingFrom(now.byLine, old.byLine),
    removed: missingFrom(old.byLine, now.byLine),
    method: STRENGTH[old.method] <= STRENGTH[now.method] ? old.method : now.method,
  };
}
