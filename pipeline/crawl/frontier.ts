import { urlPld } from '../core/index.ts';
import { PldQueue } from './pld-queue.ts';

/** What the frontier knows of one URL. Kept small: a crawl of a million URLs holds a million of these. */
interface UrlEntry {
  depth: number;
  inlinks: number;
  /** Round the URL was assigned to; -1 while it is only a candidate for the next round. */
  round: number;
  done: boolean;
}

/** A URL as it enters a round: journaled at round start so that a resumed crawl rebuilds the round. */
export type RoundUrl = readonly [url: string, depth: number];

/**
 * The crawl frontier: every URL seen so far, per-PLD queues for the current round, and the
 * candidates discovered for the next one. Depth is the BFS distance from the seeds (what hop
 * limits and the adaptive budget look at); the round is when the URL is fetched.
 */
export class Frontier {
  private readonly entries = new Map<string, UrlEntry>();
  private readonly queues = new Map<string, PldQueue>();
  private candidates: string[] = [];
  private queuedCount = 0;

  /** URLs queued in the current round, over all PLDs. */
  get queued(): number {
    return this.queuedCount;
  }

  /** URLs known to the frontier (queued, done or candidates). */
  get seen(): number {
    return this.entries.size;
  }

  /** Candidates waiting for the next round. */
  get pending(): number {
    return this.candidates.length;
  }

  /** Notes a link from a document at `fromDepth`; new URLs become candidates for the next round. */
  discover(url: string, fromDepth: number): void {
    const entry = this.entries.get(url);
    if (entry) {
      entry.inlinks++;
      entry.depth = Math.min(entry.depth, fromDepth + 1);
      if (!entry.done && entry.round >= 0) this.queueOf(url)?.put(url, entry.inlinks);
      return;
    }
    this.entries.set(url, { depth: fromDepth + 1, inlinks: 1, round: -1, done: false });
    this.candidates.push(url);
  }

  /** Marks a URL as fetched elsewhere (a redirect target), so that it is not fetched again. */
  markSeen(url: string, depth: number): void {
    const entry = this.entries.get(url);
    if (!entry) this.entries.set(url, { depth, inlinks: 0, round: -2, done: true });
  }

  /**
   * Starts round `round`: the URLs still queued stay (the previous round's tail moves over), and
   * candidates whose depth is at most `maxDepth` join, best first, up to `budget` new URLs.
   * Returns the URLs that joined, for the journal.
   */
  startRound(round: number, maxDepth: number, budget: number): RoundUrl[] {
    const fresh = this.candidates
      .map((url) => [url, this.entries.get(url)!] as const)
      .filter(([, e]) => e.round === -1 && e.depth <= maxDepth)
      .sort(
        ([ua, a], [ub, b]) => a.depth - b.depth || b.inlinks - a.inlinks || (ua < ub ? -1 : ua > ub ? 1 : 0),
      )
      .slice(0, Math.max(0, budget));
    const joined: RoundUrl[] = [];
    for (const [url, entry] of fresh) {
      this.enqueue(url, entry, round);
      joined.push([url, entry.depth]);
    }
    this.candidates = this.candidates.filter((url) => this.entries.get(url)!.round === -1);
    return joined;
  }

  /** Puts URLs into the current round directly (seeds, and the replay of a journaled round). */
  assign(urls: readonly RoundUrl[], round: number): void {
    for (const [url, depth] of urls) {
      let entry = this.entries.get(url);
      if (!entry) {
        entry = { depth, inlinks: 0, round: -1, done: false };
        this.entries.set(url, entry);
      }
      entry.depth = Math.min(entry.depth, depth);
      if (!entry.done && entry.round < 0) this.enqueue(url, entry, round);
    }
    this.candidates = this.candidates.filter((u) => this.entries.get(u)!.round === -1);
  }

  /** PLDs with URLs queued in the current round. */
  activePlds(): string[] {
    return [...this.queues.entries()].filter(([, q]) => q.size > 0).map(([pld]) => pld);
  }

  /** How many URLs of `pld` are queued. */
  queuedFor(pld: string): number {
    return this.queues.get(pld)?.size ?? 0;
  }

  /** PLDs of the candidates that would join the next round (for the round-end rule). */
  candidatePlds(maxDepth: number): Set<string> {
    const plds = new Set<string>();
    for (const url of this.candidates) {
      const entry = this.entries.get(url)!;
      if (entry.depth <= maxDepth) plds.add(urlPld(url));
    }
    return plds;
  }

  /** Takes the best queued URL of `pld` (most in-links first). */
  take(pld: string): { url: string; depth: number } | undefined {
    const url = this.queues.get(pld)?.take();
    if (url === undefined) return undefined;
    this.queuedCount--;
    const entry = this.entries.get(url)!;
    entry.done = true;
    return { url, depth: entry.depth };
  }

  /** Records a URL as done without taking it from a queue (journal replay). */
  markDone(url: string): void {
    const entry = this.entries.get(url);
    if (!entry || entry.done) return;
    if (this.queueOf(url)?.remove(url)) this.queuedCount--;
    entry.done = true;
  }

  depthOf(url: string): number | undefined {
    return this.entries.get(url)?.depth;
  }

  private enqueue(url: string, entry: UrlEntry, round: number): void {
    entry.round = round;
    const pld = urlPld(url);
    let queue = this.queues.get(pld);
    if (!queue) {
      queue = new PldQueue();
      this.queues.set(pld, queue);
    }
    queue.put(url, entry.inlinks);
    this.queuedCount++;
  }

  private queueOf(url: string): PldQueue | undefined {
    return this.queues.get(urlPld(url));
  }
}
