/**
 * Where a PLD's time goes between its requests (issue #35). A crawl's length is bounded below by
 * its busiest PLD: requests x delay, plus the time the server takes to answer each, since the gate
 * counts the delay from the answer. Whatever else keeps that PLD idle after the delay has run,
 * between the end of one answer and the start of its next request, lengthens the crawl; this
 * records the moments the gate and the crawl report (GateObserver, CrawlObserver) and splits each
 * such idle gap by what the PLD was waiting for.
 *
 * Times are the recorder's own (performance.now by default), read when each moment is reported:
 * the clocks the crawl runs on count whole milliseconds, too coarse for gaps of a few.
 * The split assumes one request in flight per PLD at a time (config.perPld 1, the default).
 */
import { countAtMost } from '../core/index.ts';
import type { GateObserver } from '../web/index.ts';
import { type CrawlObserver, DOCUMENT_PHASES, type DocumentPhase } from './crawl.ts';

/**
 * What an idle gap beyond the delay was spent on, at each moment the first that holds:
 * - gate: the gate still held the PLD (its rounding to whole milliseconds, a Retry-After or backoff);
 * - loop: nothing but the event loop stood in the way: the request waited at an open gate (its timer
 *   fired late), or the PLD could go and a slot was free but the fill loop had not run yet;
 * - fetch: a fetch of the PLD was between its requests or before its first (robots.txt check,
 *   following a redirect); a robots.txt request is a request of its own, its time is not idle;
 * - archive: the previous document, still holding its PLD, had its fetch over but not yet handed on
 *   (its WARC record written);
 * - parse: the previous document, still holding its PLD, was being parsed and hashed (the wait for a
 *   parse worker included);
 * - journal: the previous document, still holding its PLD, was being journaled;
 * - slot: the PLD could go, but every fetch slot was busy.
 */
export type GapCause = 'gate' | 'loop' | 'fetch' | 'archive' | 'parse' | 'journal' | 'slot';
export const GAP_CAUSES: readonly GapCause[] = [
  'gate',
  'loop',
  'fetch',
  'archive',
  'parse',
  'journal',
  'slot',
];

/** One PLD's time over a crawl from `start` to `end`, as the recorder saw it (ms). */
export interface PldTimeline {
  readonly requests: number;
  /** Sum over requests of send to end of answer. */
  readonly serviceMs: number;
  /** From the crawl's start to the PLD's first request. */
  readonly headMs: number;
  /** From the end of the PLD's last answer to the crawl's end. */
  readonly tailMs: number;
  /** Idle time beyond the delay between an answer and the next request, by cause. */
  readonly idleMs: Readonly<Record<GapCause, number>>;
  /** Sum of the gaps shorter than the delay from the answer's end (the gate counts from its headers), as a positive number. */
  readonly earlyMs: number;
}

interface Request {
  waiting: number;
  granted: number;
  released: number;
  /** When the gate would let the next request through, as it said at release (or later, held). */
  ready: number;
}

type Doc = Record<DocumentPhase, number>;

interface PldRecord {
  readonly requests: Request[];
  /** Requests waiting at the gate, oldest first (the gate lets them through in that order). */
  readonly queued: number[];
  /** Index of the oldest request sent and not yet released. */
  inFlight: number;
  /** Documents of the PLD in the order their fetches started (one at a time: perPld 1). */
  readonly docs: Doc[];
}

/** Records a crawl's moments (pass it as the crawl's observer and the fetcher's gate observer) and splits idle gaps. */
export class IdleGapRecorder implements GateObserver, CrawlObserver {
  private readonly plds = new Map<string, PldRecord>();
  /** Documents not yet released, by URL. */
  private readonly docs = new Map<string, Doc>();
  private readonly slotTimes: number[] = [];
  private readonly slotBusy: number[] = [];
  private readonly concurrency: number;
  private readonly now: () => number;

  constructor(concurrency: number, now: () => number = () => performance.now()) {
    this.concurrency = concurrency;
    this.now = now;
  }

  private of(pld: string): PldRecord {
    let record = this.plds.get(pld);
    if (!record) {
      record = { requests: [], queued: [], inFlight: 0, docs: [] };
      this.plds.set(pld, record);
    }
    return record;
  }

  waiting(pld: string): void {
    this.of(pld).queued.push(this.now());
  }

  granted(pld: string): void {
    const record = this.of(pld);
    const now = this.now();
    const waiting = record.queued.shift() ?? now;
    record.requests.push({ waiting, granted: now, released: Number.NaN, ready: Number.NaN });
  }

  released(pld: string, readyInMs: number): void {
    const request = this.of(pld).requests[this.of(pld).inFlight++];
    if (!request) return;
    request.released = this.now();
    request.ready = request.released + readyInMs;
  }

  held(pld: string, readyInMs: number): void {
    const record = this.of(pld);
    const last = record.requests[record.inFlight - 1];
    if (last) last.ready = Math.max(last.ready, this.now() + readyInMs);
  }

  slots(busy: number): void {
    this.slotTimes.push(this.now());
    this.slotBusy.push(busy);
  }

  document(pld: string, url: string, phase: DocumentPhase): void {
    const now = this.now();
    if (phase === 'taken') {
      const doc = { taken: now } as Doc;
      for (const p of DOCUMENT_PHASES) if (p !== 'taken') doc[p] = Number.NaN;
      this.of(pld).docs.push(doc);
      this.docs.set(url, doc);
      return;
    }
    const doc = this.docs.get(url);
    if (!doc) return;
    doc[phase] = now;
    if (phase === 'released') this.docs.delete(url);
  }

  /** The recorder's clock now: a crawl's start and end in the same time as its moments. */
  mark(): number {
    return this.now();
  }

  /** PLD `pld`'s time between `start` and `end` (mark()), its gaps measured against `delayMs`. */
  timeline(pld: string, delayMs: number, start: number, end: number): PldTimeline {
    const record = this.plds.get(pld);
    const idleMs = Object.fromEntries(GAP_CAUSES.map((c) => [c, 0])) as Record<GapCause, number>;
    const requests = record?.requests.filter((r) => !Number.isNaN(r.released)) ?? [];
    if (!record || requests.length === 0) {
      return { requests: 0, serviceMs: 0, headMs: end - start, tailMs: 0, idleMs, earlyMs: 0 };
    }
    let serviceMs = 0;
    let earlyMs = 0;
    for (let k = 0; k < requests.length; k++) {
      serviceMs += requests[k].released - requests[k].granted;
      if (k === 0) continue;
      const lo = requests[k - 1].released + delayMs;
      const hi = requests[k].granted;
      if (hi < lo) earlyMs += lo - hi;
      else this.split(record, requests[k - 1], requests[k], lo, hi, idleMs);
    }
    return {
      requests: requests.length,
      serviceMs,
      headMs: requests[0].granted - start,
      tailMs: end - requests[requests.length - 1].released,
      idleMs,
      earlyMs,
    };
  }

  /** Adds [lo, hi] of the gap between `before` and `next` to `idle`, piece by piece between the moments that change the cause. */
  private split(
    record: PldRecord,
    before: Request,
    next: Request,
    lo: number,
    hi: number,
    idle: Record<GapCause, number>,
  ): void {
    const cuts = [lo, hi, before.ready, next.waiting];
    for (const d of record.docs) {
      if (d.taken > hi) break;
      cuts.push(d.taken, d.fetched, d.parsed, d.freed);
    }
    for (let i = firstAfter(this.slotTimes, lo); i < this.slotTimes.length && this.slotTimes[i] < hi; i++) {
      cuts.push(this.slotTimes[i]);
    }
    const inside = cuts.filter((t) => t >= lo && t <= hi).sort((a, b) => a - b);
    for (let i = 1; i < inside.length; i++) {
      const span = inside[i] - inside[i - 1];
      if (span > 0) idle[this.causeAt(record, before, next, (inside[i] + inside[i - 1]) / 2, hi)] += span;
    }
  }

  private causeAt(record: PldRecord, before: Request, next: Request, t: number, hi: number): GapCause {
    if (t < before.ready) return 'gate';
    if (next.waiting <= t) return 'loop';
    const doc = record.docs[firstTakenAfter(record.docs, t) - 1];
    if (doc && !(doc.freed <= t)) {
      if (!(doc.fetched <= t)) {
        // a fetch that sends the next request itself, or began after the answer, is between requests
        return doc.taken > before.released || !(doc.fetched <= hi) ? 'fetch' : 'archive';
      }
      if (!(doc.parsed <= t)) return 'parse';
      return 'journal';
    }
    const i = firstAfter(this.slotTimes, t) - 1;
    return i >= 0 && this.slotBusy[i] >= this.concurrency ? 'slot' : 'loop';
  }
}

/** Index of the first of `docs` (in the order taken) taken after `t`. */
function firstTakenAfter(docs: readonly Doc[], t: number): number {
  return countAtMost(docs.length, (i) => docs[i].taken, t);
}

/** Index of the first element of sorted `times` greater than `t`. */
function firstAfter(times: readonly number[], t: number): number {
  return countAtMost(times.length, (i) => times[i], t);
}
