/**
 * The crawl's memory budget for documents in flight (docs/crawling.md, "Memory budget"): what the
 * bodies being received, the bodies held and their reading (parse input, parser, statements) cost
 * together stays under one bound, whatever the concurrency, at the cost of waiting.
 *
 * A body's size is known only once it has arrived (Content-Length may lie or be absent), so each
 * document holds a lease that is charged as its body arrives, and the web stage stops reading the
 * body (backpressure) while its next charge does not fit. Three rules make that safe:
 * - the lease names the most it can come to (its claim, from Content-Length or the byte limit), and
 *   a charge is granted only if, after it, the leases holding bytes can still all finish in some
 *   order (the banker's rule): waiting bodies never hold each other up for ever;
 * - a lease that is alone (no other lease holds bytes) is always granted, so a body whose cost
 *   exceeds the whole budget is still read, alone;
 * - when every lease holding bytes waits (for room, or for something a waiting fetch may hold, such
 *   as a JSON-LD context on a PLD whose only request is paused), the oldest waiter goes on past the
 *   bound: the one case in which `peak` may exceed `limit` with more than one lease.
 */

/**
 * Bytes of memory a body of `bytes` bytes served as `contentType` costs until its document is
 * done; never decreasing in `bytes`, 0 for none.
 */
export type BodyCost = (contentType: string | null, bytes: number) => number;

/** One document's share of the budget, charged as its body arrives and given back when it is done. */
export interface MemoryLease {
  /**
   * Another request of the document starts (a retry, a redirect hop, a 304 checked): the answer
   * charged before is dropped, and what it was charged goes back to the budget.
   */
  drop(): void;
  /**
   * A response body begins: its type and the most bytes it can bring (its claim). What an earlier
   * body of this lease was charged is given back first.
   */
  expect(contentType: string | null, bytesAtMost: number): void;
  /** Charges the cost of `bytes` bytes of the body so far if the budget has room for it now; says whether it did. */
  tryCharge(bytes: number): boolean;
  /**
   * The body has brought `bytes` bytes so far: resolves once their cost is charged, after waiting
   * while the budget has no room for it. Rejects with the signal's reason if it aborts meanwhile.
   */
  charge(bytes: number, signal?: AbortSignal): Promise<void>;
  /**
   * A body already in memory (from a fetcher that did not charge this lease): its cost is charged
   * at once, room or not, so that the budget knows of it; nothing if it was charged already.
   */
  settle(contentType: string | null, bytes: number): void;
  /** The document is done: everything it was charged goes back to the budget. */
  release(): void;
  /** Bytes charged to this lease now. */
  readonly charged: number;
}

interface Holder {
  readonly cost: BodyCost;
  contentType: string | null;
  charged: number;
  claim: number;
  waiter: Waiter | null;
  released: boolean;
}

interface Waiter {
  readonly holder: Holder;
  readonly target: number;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal?: AbortSignal;
  readonly onAbort?: () => void;
}

/** A bound on the bytes of documents in flight, shared by a crawl's fetches (see the file's comment). */
export class MemoryBudget {
  /** The bound, in bytes. */
  readonly limit: number;
  private usedBytes = 0;
  private peakBytes = 0;
  private overdrawnTimes = 0;
  private waitedTimes = 0;
  private readonly holders = new Set<Holder>();
  private readonly waiters: Waiter[] = [];
  private asideCount = 0;

  constructor(limit: number) {
    if (!(limit > 0)) throw new RangeError(`a memory budget needs a positive number of bytes, not ${limit}`);
    this.limit = limit;
  }

  /** Bytes charged now. */
  get used(): number {
    return this.usedBytes;
  }

  /** The most bytes charged at once so far. */
  get peak(): number {
    return this.peakBytes;
  }

  /** Charges granted past the bound because every lease holding bytes waited (see the file's comment). */
  get overdrawn(): number {
    return this.overdrawnTimes;
  }

  /** Charges that had to wait for room so far. */
  get waited(): number {
    return this.waitedTimes;
  }

  /** Bodies waiting for room now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** True when no fetch should start: the budget is spent, or a body already waits for room. */
  get saturated(): boolean {
    return this.usedBytes >= this.limit || this.waiters.length > 0;
  }

  /**
   * Runs `work` (a JSON-LD context a document being read needs) as a wait outside the budget: a
   * document waiting for it cannot give its bytes back, and the request it waits for may be queued
   * behind a fetch that waits for room (one request per PLD at a time).
   */
  async aside<T>(work: () => Promise<T>): Promise<T> {
    this.asideCount++;
    this.pump();
    try {
      return await work();
    } finally {
      this.asideCount--;
    }
  }

  /** A lease for one document whose bodies cost what `cost` says. */
  lease(cost: BodyCost): MemoryLease {
    const h: Holder = {
      cost,
      contentType: null,
      charged: 0,
      claim: 0,
      waiter: null,
      released: false,
    };
    this.holders.add(h);
    return {
      drop: () => {
        this.setCharge(h, 0);
        h.claim = 0;
        this.pump();
      },
      expect: (contentType, bytesAtMost) => {
        this.setCharge(h, 0);
        h.contentType = contentType;
        h.claim = cost(contentType, bytesAtMost);
        this.pump();
      },
      tryCharge: (bytes) => this.tryCharge(h, cost(h.contentType, bytes)),
      charge: (bytes, signal) => this.charge(h, cost(h.contentType, bytes), signal),
      settle: (contentType, bytes) => {
        const target = cost(contentType, bytes);
        if (h.released || target <= h.charged) return;
        h.claim = Math.max(h.claim, target);
        this.setCharge(h, target);
      },
      release: () => {
        if (h.released) return;
        h.released = true;
        this.holders.delete(h);
        if (h.waiter) {
          const waiter = h.waiter;
          this.unwait(waiter);
          waiter.resolve();
        }
        this.setCharge(h, 0);
        this.pump();
      },
      get charged() {
        return h.charged;
      },
    };
  }

  private tryCharge(h: Holder, target: number): boolean {
    if (h.released || target <= h.charged) return true;
    // a body that brings more than its claim said (it cannot, unless a server lied in a way the
    // HTTP parser let through) claims what it brought
    h.claim = Math.max(h.claim, target);
    if (!this.grantable(h, target)) return false;
    this.setCharge(h, target);
    return true;
  }

  private charge(h: Holder, target: number, signal?: AbortSignal): Promise<void> {
    if (this.tryCharge(h, target)) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = signal
        ? () => {
            this.unwait(waiter);
            reject(signal.reason);
          }
        : undefined;
      const waiter: Waiter = { holder: h, target, resolve, reject, signal, onAbort };
      this.waitedTimes++;
      h.waiter = waiter;
      this.waiters.push(waiter);
      if (onAbort) signal?.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }

  /**
   * Whether `h` may hold `target` bytes now: it is alone, or the charge fits and leaves a state in
   * which the leases holding bytes can finish one after the other, each within what the ones
   * before it gave back (the last one alone, whatever its claim).
   */
  private grantable(h: Holder, target: number): boolean {
    const others = [...this.holders].filter((o) => o !== h && o.charged > 0);
    if (others.length === 0) return true;
    const used = this.usedBytes - h.charged + target;
    if (used > this.limit) return false;
    const holding = [
      ...others.map((o) => ({ charged: o.charged, remaining: Math.max(0, o.claim - o.charged) })),
      { charged: target, remaining: Math.max(0, h.claim - target) },
    ].sort((a, b) => a.remaining - b.remaining);
    let free = this.limit - used;
    for (let i = 0; i < holding.length; i++) {
      if (holding[i].remaining > free && i < holding.length - 1) return false;
      free += holding[i].charged;
    }
    return true;
  }

  /** Grants every waiter that may go now, oldest first; then the oldest if no lease can move otherwise. */
  private pump(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const waiter = this.waiters[i];
      if (this.grantable(waiter.holder, waiter.target)) this.grant(waiter);
      else i++;
    }
    if (this.waiters.length === 0) return;
    // the leases holding bytes that are not waiting for room will give them back, unless each of
    // them waits outside the budget (as many such waits as there are of them)
    let moving = 0;
    for (const h of this.holders) if (h.charged > 0 && h.waiter === null) moving++;
    if (moving > this.asideCount) return;
    this.overdrawnTimes++;
    this.grant(this.waiters[0]);
  }

  private grant(waiter: Waiter): void {
    this.unwait(waiter);
    this.setCharge(waiter.holder, Math.max(waiter.holder.charged, waiter.target));
    waiter.resolve();
  }

  private unwait(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at >= 0) this.waiters.splice(at, 1);
    waiter.holder.waiter = null;
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }

  private setCharge(h: Holder, bytes: number): void {
    this.usedBytes += bytes - h.charged;
    h.charged = bytes;
    this.peakBytes = Math.max(this.peakBytes, this.usedBytes);
  }
}
