/**
 * How the audit compares a figure of the portal with its independent value: exactly by default; a
 * crawl's own clock within a minute of the virtual moment; estimates within the rounding the portal
 * applies; rankings with ties in any order; bounds where the request log decides a figure only
 * within a range (docs/audit.md, "How values are compared").
 */
import type { PortalData } from '../../pipeline/stats/portal-data.ts';
import { FREQUENCY_BUCKETS, type LevelFigure, rateOf, round2, type Truth } from './independent-figures.ts';

/** What the checks read: the independent figures and where the published files lie. */
export interface AuditInput {
  readonly truth: Truth;
  readonly root: string;
  readonly data: PortalData;
}

/** How the portal's value and the independent one are compared. */
export type Agreement = (portal: unknown, independent: unknown, input: AuditInput) => boolean;

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** A crawl's start as the crawl's clock stated it: within a minute of the virtual moment the Web stood at. */
const MINUTE = 60_000;
export const nearTime = (portal: unknown, at: unknown) =>
  typeof portal === 'string' && Math.abs(Date.parse(portal) - Date.parse(String(at))) < MINUTE;

/** Tables whose first column is a snapshot's start: that column within a minute, the rest exact. */
export const timeTable = (portal: unknown, truth: unknown): boolean => {
  const p = portal as { columns: unknown[]; rows: unknown[][] };
  const t = truth as { columns: unknown[]; rows: unknown[][] };
  return (
    deepEqual(p.columns, t.columns) &&
    p.rows.length === t.rows.length &&
    p.rows.every((r, i) => nearTime(r[0], t.rows[i][0]) && deepEqual(r.slice(1), t.rows[i].slice(1)))
  );
};

/**
 * A value the portal rounds, computed here from gaps a few seconds off the crawl's own clock (the
 * account knows the virtual moments, not the milliseconds a crawl took): the portal's value must be
 * the rounding of the independent one moved by at most a thousandth.
 */
function rounded(portal: unknown, exact: number, round: (x: number) => number): boolean {
  if (typeof portal !== 'number') return false;
  return [exact, exact * 0.999, exact * 1.001].some((x) => round(x) === portal);
}

/**
 * A ranking by an estimated rate (the top `limit` of all candidates): the portal's rows must be
 * candidates with the same values (`rates` columns rounded as the portal rounds them), in an order
 * that never puts a lower rate before a higher one, and no candidate left out may rank above the
 * last one shown. Rates the account and the crawl's clock see a few seconds apart count as equal
 * within a thousandth, so documents with the same rate may be shown in any order.
 */
export function rankedTable(o: {
  readonly rate: number;
  readonly direction: 1 | -1;
  readonly limit: number;
  readonly rates: Readonly<Record<number, (x: number) => number>>;
}): Agreement {
  return (portal, truth) => {
    const p = portal as { columns: unknown[]; rows: unknown[][] };
    const t = truth as { columns: unknown[]; rows: unknown[][] };
    if (!deepEqual(p.columns, t.columns) || p.rows.length !== Math.min(o.limit, t.rows.length)) return false;
    const byKey = new Map(t.rows.map((r) => [r[0], r]));
    const cell = (v: unknown, want: unknown, j: number) => {
      if (j in o.rates) return rounded(v, Number(want), o.rates[j]);
      if (typeof want === 'string' && want.includes(' to ')) {
        const [pl, ph] = String(v).split(' to ').map(Number);
        const [tl, th] = want.split(' to ').map(Number);
        return rounded(pl, tl, round2) && rounded(ph, th, round2);
      }
      return deepEqual(v, want);
    };
    const shown = p.rows.map((r) => byKey.get(r[0]));
    if (!shown.every((want, i) => want && p.rows[i].every((v, j) => cell(v, want[j], j)))) return false;
    // ordered by the rate as shown (rounded), ties in any order
    const shownRate = o.rates[o.rate] ?? ((x: number) => x);
    const rate = (r: unknown[] | undefined) => o.direction * shownRate(Number(r![o.rate]));
    const tolerance = (x: number) => Math.abs(x) * 1e-3 + 1e-12;
    for (let i = 1; i < shown.length; i++)
      if (rate(shown[i]) > rate(shown[i - 1]) + tolerance(rate(shown[i - 1]))) return false;
    const last = rate(shown.at(-1));
    const keys = new Set(p.rows.map((r) => r[0]));
    return t.rows.every((r) => keys.has(r[0]) || rate(r) <= last + tolerance(last));
  };
}

/** Kernel documents per level: exact where the log decides every level, else within its bounds. */
export const levelsAgree = (portal: unknown, truth: unknown): boolean => {
  const p = portal as Record<string, number>;
  const t = truth as LevelFigure;
  if (t.exact) return deepEqual(p, t.low);
  const levels = new Set([...Object.keys(p), ...Object.keys(t.high)]);
  return (
    Object.values(p).reduce((a, b) => a + b, 0) === t.documents &&
    [...levels].every((l) => (p[l] ?? 0) >= (t.low[l] ?? 0) && (p[l] ?? 0) <= (t.high[l] ?? 0))
  );
};

/** Domain pages: the chart's time column within a minute, everything else exact. */
export const domainAgree = (portal: unknown, truth: unknown): boolean => {
  const p = portal as Record<string, unknown> & { chart: { table: unknown } };
  const t = truth as Record<string, unknown> & { chart: { table: unknown } };
  return timeTable(p.chart.table, t.chart.table) && deepEqual({ ...p, chart: null }, { ...t, chart: null });
};

/** The estimate's bucket moves only for a document whose estimate lies within a thousandth of a bucket's edge. */
export function frequencyAgree(portal: unknown, truth: unknown, input: AuditInput): boolean {
  const p = portal as { columns: unknown[]; rows: Array<[string, number]> };
  const t = truth as { columns: unknown[]; rows: Array<[string, number]> };
  if (deepEqual(p, t)) return true;
  const slack = nearEdge(input.truth);
  const count = (rows: Array<[string, number]>, label: string) => rows.find((r) => r[0] === label)?.[1] ?? 0;
  const labels = new Set([...p.rows.map((r) => r[0]), ...t.rows.map((r) => r[0])]);
  return (
    deepEqual(p.columns, t.columns) &&
    p.rows.reduce((n, r) => n + r[1], 0) === t.rows.reduce((n, r) => n + r[1], 0) &&
    [...labels].every((l) => Math.abs(count(p.rows, l) - count(t.rows, l)) <= slack)
  );
}

/** Kernel documents whose estimated rate lies within a thousandth of a frequency bucket's edge. */
function nearEdge(t: Truth): number {
  let n = 0;
  for (const h of t.documents.values()) {
    if (!h.kernel || h.changes === 0) continue;
    const r = rateOf(h).perWeek;
    if (FREQUENCY_BUCKETS.some(([, edge]) => Math.abs(r - edge) <= edge * 1e-3)) n++;
  }
  return n;
}
