import type { Quad } from 'n3';

/** Statements grouped by subject, in order of first appearance: how the writers nest them. */
export function groupBySubject(quads: readonly Quad[]): Quad[][] {
  const groups = new Map<string, Quad[]>();
  for (const q of quads) {
    const k = q.subject.termType + q.subject.value;
    const group = groups.get(k);
    if (group) group.push(q);
    else groups.set(k, [q]);
  }
  return [...groups.values()];
}
