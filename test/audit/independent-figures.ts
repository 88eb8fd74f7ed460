/**
 * Every figure the portal publishes, computed again from the independent account of the crawls
 * (observations.ts: the simulated Web's ground truth and the server's request log) by plain code
 * written from the definitions of docs/data-dictionary.md, not by the portal's SQL. The one piece
 * shared with the portal is the change-rate estimator (Cho and Garcia-Molina's, tested on its own in
 * test/stats/change-rates.test.ts), fed here with histories derived independently.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import { BLOCK_LINES } from '../../pipeline/archive/zipnum.ts';
import { estimateChangeRate } from '../../pipeline/stats/change-rates.ts';
import type { AuditCrawl } from './audit-series.ts';
import {
  type ComparedObservation,
  type IndependentAccount,
  isAvailable,
  selfClasses,
  statementsOf,
} from './observations.ts';
import { type LevelRange, levelCounts, revisitLevels } from './revisit-levels.ts';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

export type Count = Record<string, number>;
export interface Ranked {
  readonly key: string;
  readonly count: number;
}
export type Row = ReadonlyArray<string | number | null>;

/** What `levels` is known to be: exactly, or within bounds per level (levelCounts). */
export type LevelFigure = ReturnType<typeof levelCounts>;

export interface SnapshotTruth {
  readonly crawl: AuditCrawl;
  readonly previous: string | null;
  readonly rows: readonly ComparedObservation[];
  readonly counts: Count;
  readonly stats: Record<string, unknown>;
  readonly newPlds: number;
  readonly digest: Record<string, unknown> & { readonly levels: LevelFigure };
  /** Published file -> rows it holds (tables only). */
  readonly tableRows: Count;
  /** Per PLD: figures (as digest.plds lists them). */
  readonly plds: ReadonlyMap<string, PldTruth>;
}

export interface PldTruth {
  readonly pld: string;
  readonly documents: number;
  readonly statements: number;
  readonly available: number;
  readonly comparisons: number;
  readonly changed: number;
}

/** A document's whole history over the series, as the Dynamics page sums it. */
export interface DocumentHistory {
  readonly url: string;
  readonly pld: string;
  readonly kernel: boolean;
  readonly attempts: number;
  readonly available: number;
  readonly comparisons: number;
  readonly changes: number;
  readonly first: number;
  readonly last: number;
  /** Seconds each comparison spanned (from the previous observation's crawl to this one's), by verdict. */
  readonly unchangedSeconds: number;
  readonly changedGaps: readonly number[];
}

export interface Truth {
  readonly kernel: readonly string[];
  readonly snapshots: ReadonlyMap<string, SnapshotTruth>;
  readonly order: readonly string[];
  readonly latestWeekly: string;
  readonly documents: ReadonlyMap<string, DocumentHistory>;
  /** Per snapshot, per kernel document, the re-visit level range after it. */
  readonly levels: ReadonlyMap<string, ReadonlyMap<string, LevelRange>>;
}

const inc = (c: Count, key: string, by = 1) => {
  c[key] = (c[key] ?? 0) + by;
};
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The n largest counts, ties by key (as `ORDER BY count DESC, key LIMIT n`). */
export function top(c: Count, n: number): Ranked[] {
  return Object.entries(c)
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || byKey(a.key, b.key))
    .slice(0, n);
}

interface DeltaKey {
  key: string;
  added: number;
  removed: number;
}

/** The 50 keys of most statements added + removed, ties by key (the digest's rankings). */
function topDelta(c: Map<string, DeltaKey>, n = 50): DeltaKey[] {
  return [...c.values()]
    .sort((a, b) => b.added + b.removed - (a.added + a.removed) || byKey(a.key, b.key))
    .slice(0, n);
}

/** Where a link points, as the Definitions say: the IRI's host without user and port, else its scheme. */
function linkTarget(iri: string): string {
  const url = new URL(iri);
  return url.host === '' ? url.protocol : url.hostname.toLowerCase();
}

/**
 * What changed statement by statement (digest.json `delta`, docs/data-dictionary.md Definitions):
 * each changed observation's canonical lines (RDFC-1.0 by rdf-canonize, each graph on its own) not
 * in its previous observation's, and the reverse, read back with n3.
 */
function deltaTruth(rows: readonly ComparedObservation[]) {
  const predicates = new Map<string, DeltaKey>();
  const classes = new Map<string, DeltaKey>();
  const links = new Map<string, DeltaKey>();
  const plds = new Map<string, { pld: string; documents: number; added: number; removed: number }>();
  const totals = { added: 0, removed: 0, linksAdded: 0, linksRemoved: 0, typesAdded: 0, typesRemoved: 0 };
  let documents = 0;
  const count = (c: Map<string, DeltaKey>, key: string, op: 'added' | 'removed') => {
    const k = c.get(key) ?? { key, added: 0, removed: 0 };
    k[op]++;
    c.set(key, k);
  };
  for (const r of rows) {
    if (!r.changed || !r.graph || !r.previous?.graph) continue;
    const now = r.graph.lines;
    const before = r.previous.graph.lines;
    const ops = [
      ['added', [...now].filter((l) => !before.has(l))],
      ['removed', [...before].filter((l) => !now.has(l))],
    ] as const;
    if (ops[0][1].length + ops[1][1].length === 0) continue;
    documents++;
    const p = plds.get(r.pld) ?? { pld: r.pld, documents: 0, added: 0, removed: 0 };
    p.documents++;
    plds.set(r.pld, p);
    for (const [op, lines] of ops)
      for (const line of lines) {
        const [q] = new Parser({ format: 'N-Quads' }).parse(line);
        totals[op]++;
        p[op]++;
        count(predicates, q.predicate.value, op);
        if (q.object.termType !== 'NamedNode') continue;
        if (q.predicate.value === RDF_TYPE) {
          totals[op === 'added' ? 'typesAdded' : 'typesRemoved']++;
          count(classes, q.object.value, op);
        } else {
          totals[op === 'added' ? 'linksAdded' : 'linksRemoved']++;
          count(links, linkTarget(q.object.value), op);
        }
      }
  }
  return {
    documents,
    ...totals,
    predicates: topDelta(predicates),
    classes: topDelta(classes),
    linkTargets: topDelta(links),
    plds: [...plds.values()].sort(
      (a, b) => b.added + b.removed - (a.added + a.removed) || byKey(a.pld, b.pld),
    ),
  };
}

export type DeltaTruth = ReturnType<typeof deltaTruth>;

/** Bucket of triples added + removed (the degree of change). */
export function degreeBucket(n: number): string {
  return n <= 1 ? '1' : n <= 5 ? '2-5' : n <= 20 ? '6-20' : n <= 100 ? '21-100' : 'over 100';
}
export const DEGREE_BUCKETS = ['1', '2-5', '6-20', '21-100', 'over 100'];

function snapshotTruth(
  crawl: AuditCrawl,
  exchanges: number,
  previous: string | null,
  rows: readonly ComparedObservation[],
  kernel: readonly string[],
  seenPlds: Set<string>,
  levels: ReadonlyMap<string, LevelRange>,
): SnapshotTruth {
  const downloaded = rows.filter((r) => r.downloaded && r.graph);
  const subjects = new Set<string>();
  const predicates: Count = {};
  const classes: Count = {};
  const blankNodes = new Set<string>();
  let literals = 0;
  for (const r of downloaded) {
    const term = (t: { termType: string; value: string }) =>
      t.termType === 'BlankNode' ? `${r.finalUrl} _:${t.value}` : t.value;
    for (const q of r.graph!.quads) {
      subjects.add(term(q.subject));
      inc(predicates, q.predicate.value);
      if (q.subject.termType === 'BlankNode') blankNodes.add(term(q.subject));
      if (q.object.termType === 'BlankNode') blankNodes.add(term(q.object));
      if (q.object.termType === 'Literal') literals++;
      if (q.predicate.value === RDF_TYPE && q.object.termType === 'NamedNode') inc(classes, q.object.value);
    }
  }
  const byStatus: Count = {};
  const byError: Count = {};
  const byFormat: Count = {};
  const bySegment: Count = {};
  const byPld: Count = {};
  const redirectStatuses: Count = {};
  const degree: Count = {};
  const plds = new Map<string, PldTruth>();
  const selfTyped: Record<string, { comparisons: number; changed: number }> = {};
  for (const r of rows) {
    inc(byStatus, r.status === null ? 'none' : String(r.status));
    inc(byError, r.error ?? 'none');
    inc(byFormat, r.format ?? 'none');
    inc(bySegment, r.segment);
    inc(byPld, r.pld);
    for (const h of r.hops) inc(redirectStatuses, String(h.status));
    if (r.changed) inc(degree, degreeBucket((r.added ?? 0) + (r.removed ?? 0)));
    const p = plds.get(r.pld) ?? {
      pld: r.pld,
      documents: 0,
      statements: 0,
      available: 0,
      comparisons: 0,
      changed: 0,
    };
    plds.set(r.pld, {
      ...p,
      documents: p.documents + 1,
      statements: p.statements + (r.downloaded ? statementsOf(r) : 0),
      available: p.available + (isAvailable(r) ? 1 : 0),
      comparisons: p.comparisons + (r.changed === null ? 0 : 1),
      changed: p.changed + (r.changed ? 1 : 0),
    });
    if (r.graph)
      for (const c of selfClasses(r.graph, r.finalUrl)) {
        const t = selfTyped[c] ?? { comparisons: 0, changed: 0 };
        selfTyped[c] = {
          comparisons: t.comparisons + (r.changed === null ? 0 : 1),
          changed: t.changed + (r.changed ? 1 : 0),
        };
      }
  }
  const statements = downloaded.reduce((n, r) => n + statementsOf(r), 0);
  const hops = rows.reduce((n, r) => n + r.hops.length, 0);
  const newPlds = Object.keys(byPld).filter((p) => !seenPlds.has(p)).length;
  for (const p of Object.keys(byPld)) seenPlds.add(p);
  const errors = new Map<string, string>();
  for (const r of rows)
    if (r.error !== null && (!errors.has(r.error) || r.url < errors.get(r.error)!))
      errors.set(r.error, r.url);
  const delta = deltaTruth(rows);
  const chains = rows
    .filter((r) => r.hops.length > 0)
    .sort((a, b) => b.hops.length - a.hops.length || byKey(a.url, b.url))
    .slice(0, 10)
    .map((r) => ({ url: r.url, hops: r.hops.length, chain: r.hops.map((h) => h.to).join(' -> ') }));
  return {
    crawl,
    previous,
    rows,
    counts: {
      documents: rows.length,
      statements,
      redirects: hops,
      changes: rows.length,
      schedule: kernel.length,
    },
    stats: {
      documents: rows.length,
      bytes: rows.reduce((n, r) => n + r.receivedBytes, 0),
      statements,
      distinctSubjects: subjects.size,
      distinctPredicates: Object.keys(predicates).length,
      distinctClasses: Object.keys(classes).length,
      literals,
      distinctBlankNodes: blankNodes.size,
      redirectHops: hops,
      redirectedDocuments: rows.filter((r) => r.hops.length > 0).length,
      byStatus,
      byError,
      byFormat,
      bySegment,
      plds: { total: Object.keys(byPld).length, top: top(byPld, 25) },
      topClasses: top(classes, 25),
      topPredicates: top(predicates, 25),
      changes: {
        changed: rows.filter((r) => r.changed === true).length,
        unchanged: rows.filter((r) => r.changed === false).length,
        new: rows.filter((r) => r.previous === null).length,
        notComparable: rows.filter((r) => r.previous !== null && r.changed === null).length,
        availabilityChanged: rows.filter((r) => r.availabilityChanged).length,
        triplesAdded: rows.reduce((n, r) => n + (r.added ?? 0), 0),
        triplesRemoved: rows.reduce((n, r) => n + (r.removed ?? 0), 0),
      },
    },
    newPlds,
    digest: {
      available: rows.filter(isAvailable).length,
      availabilityChanged: rows.filter((r) => r.availabilityChanged).length,
      bytes: rows.reduce((n, r) => n + r.receivedBytes, 0),
      levels: levelCounts(levels),
      changeDegree: DEGREE_BUCKETS.filter((b) => degree[b]).map((key) => ({ key, count: degree[key] })),
      redirectStatuses,
      redirectChains: chains,
      errorExamples: [...errors].sort(([a], [b]) => byKey(a, b)).map(([error, url]) => ({ error, url })),
      plds: [...plds.values()].sort((a, b) => b.documents - a.documents || byKey(a.pld, b.pld)),
      classes: Object.entries(selfTyped)
        .map(([key, t]) => ({ key, ...t }))
        .sort((a, b) => b.comparisons - a.comparisons || byKey(a.key, b.key))
        .slice(0, 50),
      delta,
    },
    tableRows: {
      'data.nq.gz': statements,
      // the archive's index: one line per exchange that got a response, robots.txt included, in
      // blocks of BLOCK_LINES with one line of index.idx each
      'index.cdx.gz': exchanges,
      'index.idx': Math.ceil(exchanges / BLOCK_LINES),
      'documents.parquet': rows.length,
      'quads.parquet': statements,
      'redirects.parquet': hops,
      'changes.parquet': rows.length,
      'schedule.parquet': kernel.length,
      'delta.parquet': delta.added + delta.removed,
    },
    plds,
  };
}

/** Every document's history: attempts, availability, comparisons and the gaps they spanned. */
function histories(account: IndependentAccount): Map<string, DocumentHistory> {
  const out = new Map<string, DocumentHistory>();
  for (const { crawl, rows } of account.crawls)
    for (const r of rows) {
      const h = out.get(r.url) ?? {
        url: r.url,
        pld: r.pld,
        kernel: false,
        attempts: 0,
        available: 0,
        comparisons: 0,
        changes: 0,
        first: crawl.at,
        last: crawl.at,
        unchangedSeconds: 0,
        changedGaps: [],
      };
      const gap = r.previous ? (crawl.at - r.previous.crawl.at) / 1000 : 0;
      out.set(r.url, {
        ...h,
        kernel: h.kernel || r.segment === 'kernel',
        attempts: h.attempts + 1,
        available: h.available + (isAvailable(r) ? 1 : 0),
        comparisons: h.comparisons + (r.changed === null ? 0 : 1),
        changes: h.changes + (r.changed ? 1 : 0),
        last: crawl.at,
        unchangedSeconds: h.unchangedSeconds + (r.changed === false ? gap : 0),
        changedGaps: r.changed ? [...h.changedGaps, gap] : h.changedGaps,
      });
    }
  return out;
}

/** The account's figures: per snapshot, and over the series. */
export function truthFigures(account: IndependentAccount, kernel: readonly string[]): Truth {
  const levels = revisitLevels(account, kernel);
  const snapshots = new Map<string, SnapshotTruth>();
  const seenPlds = new Set<string>();
  let previous: string | null = null;
  for (const { crawl, rows, exchanges } of account.crawls) {
    snapshots.set(
      crawl.name,
      snapshotTruth(crawl, exchanges, previous, rows, kernel, seenPlds, levels.get(crawl.name) ?? new Map()),
    );
    previous = crawl.name;
  }
  const order = account.crawls.map((c) => c.crawl.name);
  const weekly = account.crawls.filter((c) => c.crawl.kind === 'weekly');
  return {
    kernel,
    snapshots,
    order,
    latestWeekly: (weekly.at(-1) ?? account.crawls.at(-1)!).crawl.name,
    documents: histories(account),
    levels,
  };
}

/** Two significant digits at most (the Dynamics page's rounding of rates). */
export const round2 = (x: number) => (x === 0 || !Number.isFinite(x) ? x : Number(x.toPrecision(2)));

/** The hour bucket of a comparison's gap, 20 a decade (the portal's documented grouping of changed gaps). */
export function gapBucket(seconds: number): number {
  return Math.floor(20 * Math.log10(seconds / 3600));
}

/** A document's estimated changes a week from its history: its changed gaps grouped as documented. */
export function rateOf(h: DocumentHistory) {
  const groups = new Map<number, { changes: number; seconds: number }>();
  for (const g of h.changedGaps) {
    if (g <= 0) continue;
    const b = gapBucket(g);
    const e = groups.get(b) ?? { changes: 0, seconds: 0 };
    groups.set(b, { changes: e.changes + 1, seconds: e.seconds + g });
  }
  return estimateChangeRate(h.comparisons, [...groups.values()], h.unchangedSeconds);
}

export const FREQUENCY_BUCKETS: ReadonlyArray<readonly [string, number]> = [
  ['under 1/month', 7 / 30.44],
  ['1/month to <1/wk', 1],
  ['1/wk to <1/day', 7],
  ['1/day or more', Number.POSITIVE_INFINITY],
];

/** Per frequency label, the kernel documents compared at least once. */
export function changeFrequency(truth: Truth): Row[] {
  const counts: Count = {};
  for (const h of truth.documents.values()) {
    if (!h.kernel || h.comparisons === 0) continue;
    const perWeek = rateOf(h).perWeek;
    inc(
      counts,
      h.changes === 0 ? 'no change seen' : FREQUENCY_BUCKETS.find(([, below]) => perWeek < below)![0],
    );
  }
  return ['no change seen', ...FREQUENCY_BUCKETS.map(([l]) => l)]
    .filter((l) => counts[l])
    .map((l) => [l, counts[l]]);
}

const AVAILABILITY = [
  ['never', (a: number) => a === 0],
  ['over 0, <50%', (a: number) => a < 0.5],
  ['50% to <90%', (a: number) => a < 0.9],
  ['90% to <100%', (a: number) => a < 1],
  ['always', () => true],
] as const;

/** Documents by the share of their attempts that retrieved RDF. */
export function availabilityDistribution(truth: Truth): Row[] {
  const counts: Count = {};
  for (const h of truth.documents.values()) {
    const a = h.available / h.attempts;
    inc(counts, AVAILABILITY.find(([, test]) => test(a))![0]);
  }
  return AVAILABILITY.map(([l]) => l)
    .filter((l) => counts[l])
    .map((l) => [l, counts[l]]);
}

const LIFESPAN: ReadonlyArray<readonly [string, number]> = [
  ['under 1 day', 1],
  ['1 day to <1 week', 7],
  ['1 to <4 weeks', 28],
  ['4 to <26 weeks', 182],
  ['26 weeks or more', Number.POSITIVE_INFINITY],
];

/** Documents by days from their first to their last attempt. */
export function lifespan(truth: Truth): Row[] {
  const counts: Count = {};
  for (const h of truth.documents.values()) {
    const days = (h.last - h.first) / 86_400_000;
    inc(counts, LIFESPAN.find(([, below]) => days < below)![0]);
  }
  return LIFESPAN.map(([l]) => l)
    .filter((l) => counts[l])
    .map((l) => [l, counts[l]]);
}

/** The PLDs with at least 3 comparisons, by the mean estimated rate of their compared documents (the portal shows 15). */
export function dynamicPlds(truth: Truth, order: 1 | -1): Row[] {
  const plds = new Map<
    string,
    { documents: number; comparisons: number; changes: number; sum: number; rated: number }
  >();
  for (const h of truth.documents.values()) {
    const p = plds.get(h.pld) ?? { documents: 0, comparisons: 0, changes: 0, sum: 0, rated: 0 };
    const rated = h.comparisons > 0;
    plds.set(h.pld, {
      documents: p.documents + 1,
      comparisons: p.comparisons + h.comparisons,
      changes: p.changes + h.changes,
      sum: p.sum + (rated ? rateOf(h).perWeek : 0),
      rated: p.rated + (rated ? 1 : 0),
    });
  }
  return [...plds]
    .filter(([, p]) => p.comparisons >= 3 && p.rated > 0)
    .map(([pld, p]) => ({ pld, ...p, mean: p.sum / p.rated }))
    .sort(
      (a, b) =>
        order * (round2(b.mean) - round2(a.mean)) || b.comparisons - a.comparisons || byKey(a.pld, b.pld),
    )
    .map((p) => [
      p.pld,
      p.documents,
      p.comparisons,
      p.changes,
      Math.round((1000 * p.changes) / p.comparisons) / 1000,
      p.mean,
    ]);
}

/** The documents with a change, by estimated rate (the portal shows the first 15). */
export function dynamicDocuments(truth: Truth): Row[] {
  return [...truth.documents.values()]
    .filter((h) => h.changes > 0)
    .map((h) => ({ h, rate: rateOf(h) }))
    .sort((a, b) => b.rate.perWeek - a.rate.perWeek || byKey(a.h.url, b.h.url))
    .map(({ h, rate }) => [
      h.url,
      h.comparisons,
      h.changes,
      Math.round(rate.observedDays),
      rate.perWeek,
      `${rate.low} to ${rate.high}`,
    ]);
}

/** Classes documents declare for themselves, over every observation, by the share of comparisons that changed. */
export function vocabularies(truth: Truth): Row[] {
  const totals = new Map<string, { comparisons: number; changed: number }>();
  for (const s of truth.snapshots.values())
    for (const r of s.rows) {
      if (!r.graph) continue;
      for (const c of selfClasses(r.graph, r.finalUrl)) {
        const t = totals.get(c) ?? { comparisons: 0, changed: 0 };
        totals.set(c, {
          comparisons: t.comparisons + (r.changed === null ? 0 : 1),
          changed: t.changed + (r.changed ? 1 : 0),
        });
      }
    }
  return [...totals]
    .filter(([, t]) => t.comparisons > 0)
    .map(
      ([key, t]) =>
        [key, t.comparisons, t.changed, Math.round((1000 * t.changed) / t.comparisons) / 1000] as const,
    )
    .sort((a, b) => b[3] - a[3] || b[1] - a[1] || byKey(a[0], b[0]))
    .map((r) => [...r]);
}

/** A published file's size and SHA-256, read from disk. */
export async function fileFacts(root: string, snapshot: string, name: string) {
  const path = join(root, snapshot, name);
  return {
    bytes: (await stat(path)).size,
    sha256: createHash('sha256')
      .update(await readFile(path))
      .digest('hex'),
  };
}

/** The kernel documents of the newest weekly snapshot that dereferenced to RDF (statements and a format), per PLD. */
export function kernelRdfPerPld(s: SnapshotTruth): Count {
  const c: Count = {};
  for (const r of s.rows)
    if (r.segment === 'kernel' && statementsOf(r) > 0 && r.format !== null) inc(c, r.pld);
  return c;
}

/** Per round of a weekly snapshot: documents, RDF documents, their statements, PLDs and PLDs new in the round. */
export function roundFigures(s: SnapshotTruth): Row[] {
  const rounds = [...new Set(s.rows.map((r) => r.round))].sort((a, b) => a - b);
  const rdf = s.rows.filter((r) => statementsOf(r) > 0 && r.format !== null);
  const firstRound = new Map<string, number>();
  for (const r of rdf) firstRound.set(r.pld, Math.min(firstRound.get(r.pld) ?? r.round, r.round));
  return rounds.map((round) => {
    const inRound = rdf.filter((r) => r.round === round);
    return [
      s.crawl.name,
      round,
      s.rows.filter((r) => r.round === round).length,
      inRound.length,
      inRound.filter((r) => r.downloaded).reduce((n, r) => n + statementsOf(r), 0),
      new Set(inRound.map((r) => r.pld)).size,
      [...firstRound.values()].filter((f) => f === round).length,
    ];
  });
}
