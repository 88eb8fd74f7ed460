/**
 * How documents change over simulated time. Each document has a change process drawn once from
 * its seed: a mean interval from the buckets of the rescheduling paper's corpus (or never), and a
 * kind (Poisson, bursts, weekly). Its change times are generated from a per-document random
 * stream, so they can be listed for any span without simulating anything else.
 */
import { hash32, pickWeighted, randomStream, unit } from './random.ts';
import type { GeneratedWeb } from './web-shape.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const WEEK = 7 * DAY;

export interface ChangeBucket {
  readonly name: string;
  /** Range of the mean interval between changes, in days. */
  readonly minDays: number;
  readonly maxDays: number;
  readonly share: number;
}

/** Mean-interval buckets (as in the rescheduling paper) and the share of documents in each. */
export const CHANGE_BUCKETS: readonly ChangeBucket[] = Object.freeze([
  { name: '2-7d', minDays: 2, maxDays: 7, share: 0.08 },
  { name: '7-14d', minDays: 7, maxDays: 14, share: 0.06 },
  { name: '14d-1mo', minDays: 14, maxDays: 30, share: 0.07 },
  { name: '1-2mo', minDays: 30, maxDays: 60, share: 0.07 },
  { name: '2-4mo', minDays: 60, maxDays: 120, share: 0.07 },
  { name: '4-6mo', minDays: 120, maxDays: 180, share: 0.05 },
  { name: '>6mo', minDays: 180, maxDays: 365, share: 0.06 },
  { name: 'never', minDays: Number.POSITIVE_INFINITY, maxDays: Number.POSITIVE_INFINITY, share: 0.54 },
]);

export type ProcessKind = 'never' | 'poisson' | 'bursty' | 'weekly';
/** `real`: triples added or removed; `timestamp`: only the modified-date triple; `cosmetic`: blank node labels and order only (same graph). */
export type ChangeKind = 'real' | 'timestamp' | 'cosmetic';

export interface ChangeEvent {
  readonly at: number;
  readonly kind: ChangeKind;
}

export interface ChangeProcess {
  readonly bucket: string;
  readonly kind: ProcessKind;
  readonly meanIntervalMs: number;
  /** Whether the document carries a modified-date triple (and so can have timestamp-only changes). */
  readonly stamped: boolean;
}

export interface Lifetime {
  /** When the document appeared; null: before the simulated span. */
  readonly bornAt: number | null;
  /** When it disappeared; null: never within the span. */
  readonly diedAt: number | null;
  /** What it answers after dying. */
  readonly goneStatus: 404 | 410;
}

/** The change process of a document. Vocabulary documents and the first documents of each PLD are stable core resources. */
export function changeProcess(web: GeneratedWeb, doc: number): ChangeProcess {
  const b =
    CHANGE_BUCKETS[
      pickWeighted(
        CHANGE_BUCKETS.map((x) => x.share),
        unit(web.key, doc, 0xb0),
      )
    ];
  const stamped = unit(web.key, doc, 0xb1) < 0.5;
  if (b.name === 'never')
    return { bucket: b.name, kind: 'never', meanIntervalMs: Number.POSITIVE_INFINITY, stamped };
  // log-uniform within the bucket
  const days = b.minDays * (b.maxDays / b.minDays) ** unit(web.key, doc, 0xb2);
  const u = unit(web.key, doc, 0xb3);
  const kind: ProcessKind = u < 0.6 ? 'poisson' : u < 0.8 || days < 7 ? 'bursty' : 'weekly';
  return { bucket: b.name, kind, meanIntervalMs: days * DAY, stamped };
}

/** When the document lives. The first three documents of a PLD and vocabularies live throughout. */
export function lifetime(web: GeneratedWeb, doc: number, local: number, stable: boolean): Lifetime {
  const { epochMs, horizonMs } = web.options;
  const goneStatus = unit(web.key, doc, 0x11) < 0.4 ? 410 : 404;
  if (stable || local < 3) return { bornAt: null, diedAt: null, goneStatus };
  const bornAt =
    unit(web.key, doc, 0x12) < 0.12 ? epochMs + Math.floor(unit(web.key, doc, 0x13) * horizonMs) : null;
  const from = bornAt ?? epochMs;
  const diedAt =
    unit(web.key, doc, 0x14) < 0.1
      ? from + Math.floor(unit(web.key, doc, 0x15) * (epochMs + horizonMs - from))
      : null;
  return { bornAt, diedAt, goneStatus };
}

/** Whether the document exists at `t`. */
export function alive(life: Lifetime, t: number): boolean {
  return (life.bornAt === null || t >= life.bornAt) && (life.diedAt === null || t < life.diedAt);
}

function eventKind(key: number, doc: number, i: number, stamped: boolean): ChangeKind {
  const u = unit(key, doc, i, 0xe7);
  if (stamped) return u < 0.6 ? 'real' : u < 0.8 ? 'timestamp' : 'cosmetic';
  return u < 0.75 ? 'real' : 'cosmetic';
}

/**
 * Every change of the document up to `until` (and within its life and the simulated span), in
 * time order. Cost is proportional to the number of changes returned.
 */
export function changeEvents(
  web: GeneratedWeb,
  doc: number,
  process: ChangeProcess,
  life: Lifetime,
  until: number,
): ChangeEvent[] {
  const times: number[] = [];
  if (process.kind === 'never') return [];
  const { epochMs, horizonMs } = web.options;
  const start = Math.max(epochMs, life.bornAt ?? epochMs);
  const end = Math.min(until, epochMs + horizonMs, life.diedAt ?? Number.POSITIVE_INFINITY);
  const r = randomStream(web.key, doc, 0xc4);
  const mean = process.meanIntervalMs;
  // times are floored when recorded, so a draw in [end, end + 1) still lands on `end`
  const limit = end + 1;
  const push = (at: number) => {
    if (at > start && at <= end) times.push(at);
  };
  if (process.kind === 'poisson') {
    for (let t = start + r.exponential(mean); t < limit; t += r.exponential(mean)) push(Math.floor(t));
  } else if (process.kind === 'bursty') {
    // bursts of 2-4 changes a few hours apart; bursts arrive so that the mean interval holds
    for (let t = start + r.exponential(mean * 3); t < limit; t += r.exponential(mean * 3)) {
      const size = 2 + r.int(3);
      let at = t;
      for (let i = 0; i < size; i++) {
        push(Math.floor(at));
        at += r.exponential(2 * HOUR);
      }
    }
  } else {
    // weekly rhythm: same weekday and hour every `period` weeks, a change skipped one time in ten
    const period = Math.max(1, Math.round((0.9 * mean) / WEEK)) * WEEK;
    const offset = hash32(web.key, doc, 0xd3) % WEEK;
    const first = start - ((start - epochMs) % WEEK) + offset;
    for (let t = first; t < limit; t += period) {
      if (r.next() < 0.9) push(Math.floor(t + r.next() * HOUR));
    }
  }
  // bursts may overlap the next one: order by time before numbering
  times.sort((a, b) => a - b);
  return times.map((at, i) => ({ at, kind: eventKind(web.key, doc, i, process.stamped) }));
}

/** What the content of a document depends on at a moment: counts of changes so far and the last stamp. */
export interface DocVersion {
  /** Real changes so far: selects the graph. */
  readonly real: number;
  /** All changes so far: selects blank node labels and statement order. */
  readonly all: number;
  /** Time of the last real or timestamp change (or the document's start). */
  readonly stampedAt: number;
  /** Time of the last change of any kind (for Last-Modified). */
  readonly modifiedAt: number;
}

/** The version of a document at `t`, from its change events up to `t`. */
export function versionAt(events: readonly ChangeEvent[], start: number, t: number): DocVersion {
  let real = 0;
  let all = 0;
  let stampedAt = start;
  let modifiedAt = start;
  for (const e of events) {
    if (e.at > t) break;
    all++;
    modifiedAt = e.at;
    if (e.kind !== 'cosmetic') stampedAt = e.at;
    if (e.kind === 'real') real++;
  }
  return { real, all, stampedAt, modifiedAt };
}
