/**
 * Holds the portal's data (portal.json, what every page renders) against the independent figures:
 * a generic walk over the data in which every leaf must fall under an entry of FIGURES, either
 * checked (its independent value compared) or listed with the reason it has no independent check.
 * A figure added to the portal later without an entry here is reported as unaudited, which fails
 * the test (docs/audit.md).
 */
import { type AuditInput, deepEqual } from './agreements.ts';
import { FIGURES } from './figure-catalogue.ts';
import type { Scope } from './figure-values.ts';

export type { AuditInput };

export type Verdict = 'agrees' | 'DIFFERS' | 'known wrong';

export interface AuditRow {
  /** The figure's place in portal.json, with the ids of the elements on its path. */
  readonly figure: string;
  readonly pattern: string;
  readonly portal: unknown;
  readonly independent: unknown;
  readonly verdict: Verdict;
  /** Leaves of portal.json the comparison covers. */
  readonly leaves: number;
}

/** A figure the portal publishes wrong, reported and not fixed yet: its verdict is `known wrong`. */
export interface KnownWrong {
  readonly figure: string;
  readonly why: string;
}

export interface AuditReport {
  readonly rows: readonly AuditRow[];
  /** Listed figures: pattern, reason, leaves. */
  readonly listed: ReadonlyArray<{
    readonly figure: string;
    readonly reason: string;
    readonly leaves: number;
  }>;
  /** Leaves no entry of FIGURES covers: new figures nobody audited. */
  readonly unaudited: readonly string[];
  /** Known-wrong entries whose figure agreed everywhere (fixed: remove the entry). */
  readonly staleKnownWrong: readonly string[];
  readonly checkedLeaves: number;
  readonly listedLeaves: number;
}

const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object';

function countLeaves(v: unknown): number {
  if (!isContainer(v)) return 1;
  const children = Object.values(v);
  return children.reduce((n: number, c) => n + countLeaves(c), 0);
}

/** The id an array element is known by in a figure's name. */
function elementId(v: unknown, index: number): string {
  if (isContainer(v)) {
    const o = v as Record<string, unknown>;
    for (const k of ['name', 'pld', 'id', 'table', 'file', 'key', 'url'])
      if (typeof o[k] === 'string') return o[k] as string;
  }
  return String(index);
}

/** Removes the parts at `patterns` (relative, `[]` for every element) from a copy of `v`; counts their leaves. */
function strip(v: unknown, patterns: readonly string[]): { value: unknown; leaves: number } {
  let leaves = 0;
  const go = (x: unknown, path: string): unknown => {
    if (patterns.includes(path)) {
      leaves += countLeaves(x);
      return undefined;
    }
    if (Array.isArray(x)) return x.map((e) => go(e, `${path}[]`));
    if (isContainer(x))
      return Object.fromEntries(
        Object.entries(x)
          .map(([k, e]) => [k, go(e, `${path}.${k}`)] as const)
          .filter(([, e]) => e !== undefined),
      );
    return x;
  };
  const value = go(v, '');
  return { value, leaves };
}

/** Walks portal.json and compares every figure with its independent value. */
export async function auditPortal(
  input: AuditInput,
  knownWrong: readonly KnownWrong[] = [],
): Promise<AuditReport> {
  const entries = new Map(FIGURES.map((e) => [e.figure, e]));
  const rows: AuditRow[] = [];
  const listed = new Map<string, { reason: string; leaves: number }>();
  const unaudited: string[] = [];
  const known = new Map(knownWrong.map((k) => [k.figure, k]));
  const wrongSeen = new Set<string>();

  const visit = async (v: unknown, pattern: string, name: string, scope: Scope): Promise<void> => {
    const found = entries.get(pattern);
    const entry = found && 'leafOnly' in found && isContainer(v) ? undefined : found;
    if (entry && 'reason' in entry) {
      const l = listed.get(pattern) ?? { reason: entry.reason, leaves: 0 };
      listed.set(pattern, { ...l, leaves: l.leaves + countLeaves(v) });
      return;
    }
    if (entry) {
      const parts = Object.keys(entry.unaudited ?? {});
      const { value, leaves } = strip(v, parts);
      for (const part of parts) {
        const l = listed.get(pattern + part) ?? { reason: entry.unaudited![part], leaves: 0 };
        listed.set(pattern + part, { ...l, leaves: l.leaves + strip(v, [part]).leaves });
      }
      let independent: unknown;
      let agrees: boolean;
      try {
        independent = await entry.truth(input, scope);
        agrees = (entry.agree ?? deepEqual)(value, independent, input);
      } catch (error) {
        independent = `(no independent value: ${(error as Error).message})`;
        agrees = false;
      }
      const k = known.get(pattern);
      if (!agrees && k) wrongSeen.add(pattern);
      rows.push({
        figure: name,
        pattern,
        portal: value,
        independent,
        verdict: agrees ? 'agrees' : k ? 'known wrong' : 'DIFFERS',
        leaves: countLeaves(v) - leaves,
      });
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, e] of v.entries()) {
        const id = elementId(e, i);
        await visit(e, `${pattern}[]`, `${name}[${id}]`, { ...scope, [pattern]: id });
      }
      return;
    }
    if (isContainer(v)) {
      for (const [k, e] of Object.entries(v)) {
        const p = pattern === '' ? k : `${pattern}.${k}`;
        await visit(e, p, name === '' ? k : `${name}.${k}`, scope);
      }
      return;
    }
    unaudited.push(name);
  };
  await visit(input.data, '', '', {});
  const listedRows = [...listed].map(([figure, l]) => ({ figure, ...l }));
  return {
    rows,
    listed: listedRows,
    unaudited,
    staleKnownWrong: knownWrong.filter((k) => !wrongSeen.has(k.figure)).map((k) => k.figure),
    checkedLeaves: rows.reduce((n, r) => n + r.leaves, 0),
    listedLeaves: listedRows.reduce((n, l) => n + l.leaves, 0),
  };
}
