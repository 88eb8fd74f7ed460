import { urlPld } from '../core/index.ts';
import { PldQueue } from './pld-queue.ts';
import { type FrontierPlace, redirectTakesOver } from './redirect-targets.ts';
import { doubled, UrlTable } from './url-table.ts';

/** A URL as it enters a round: journaled at round start so that a resumed crawl rebuilds the round. */
export type RoundUrl = readonly [url: string, depth: number];

/** Round of a URL that is only a candidate for the next round. */
const CANDIDATE = -1;
/** Round of a URL fetched elsewhere (a redirect target): never queued. */
const FETCHED_ELSEWHERE = -2;
/** PLD of a URL whose PLD has not been needed yet. */
const UNKNOWN_PLD = -1;

/**
 * The crawl frontier: every URL seen so far, per-PLD queues for the current round, and the
 * candidates discovered for the next one. Depth is the BFS distance from the seeds (what hop
 * limits and the adaptive budget look at); the round is when the URL is fetched.
 *
 * A crawl of a million URLs holds a million of everything here, so each URL is a number (its id
 * in a UrlTable, which keeps the URL's bytes off V8's heap): what the frontier knows of it lives in
 * typed arrays indexed by id, PLD names are interned, and queues and candidates hold ids (bench:
 * `npm run bench frontier`).
 */
export class Frontier {
  private readonly urls = new UrlTable();
  private depths = new Int32Array(1024);
  private inlinks = new Int32Array(1024);
  /** Round the URL was assigned to, or CANDIDATE / FETCHED_ELSEWHERE. */
  private rounds = new Int32Array(1024);
  private done = new Uint8Array(1024);
  /** Index into pldNames, or UNKNOWN_PLD until first needed (a URL parse each, so only once). */
  private plds = new Int32Array(1024);
  private readonly pldNames: string[] = [];
  private readonly pldIndex = new Map<string, number>();
  /** Queues by PLD index, in the order they were first used (activePlds keeps that order). */
  private readonly queues = new Map<number, PldQueue<number>>();
  private readonly byUrl = (a: number, b: number) => (a === b ? 0 : this.urls.compare(a, b));
  private candidates: number[] = [];
  private queuedCount = 0;

  /** URLs queued in the current round, over all PLDs. */
  get queued(): number {
    return this.queuedCount;
  }

  /** URLs known to the frontier (queued, done or candidates). */
  get seen(): number {
    return this.urls.size;
  }

  /** Candidates waiting for the next round. */
  get pending(): number {
    return this.candidates.length;
  }

  /** Notes a link from a document at `fromDepth`; new URLs become candidates for the next round. */
  discover(url: string, fromDepth: number): void {
    const id = this.urls.id(url);
    if (id !== undefined) {
      this.inlinks[id]++;
      this.depths[id] = Math.min(this.depths[id], fromDepth + 1);
      if (!this.done[id] && this.rounds[id] >= 0) this.queues.get(this.pldOf(id))?.put(id, this.inlinks[id]);
      return;
    }
    this.candidates.push(this.add(url, fromDepth + 1, 1, CANDIDATE, false));
  }

  /**
   * Notes a redirect target (a fetch requested it): a URL not in a round yet is fetched elsewhere
   * from now on, never queued (redirect-targets.ts).
   */
  markSeen(url: string, depth: number): void {
    const id = this.urls.id(url);
    if (id === undefined) this.add(url, depth, 0, FETCHED_ELSEWHERE, true);
    else if (redirectTakesOver(this.placeOf(id))) {
      this.rounds[id] = FETCHED_ELSEWHERE;
      this.done[id] = 1;
    }
  }

  /**
   * Starts round `round`: the URLs still queued stay (the previous round's tail moves over), and
   * candidates whose depth is at most `maxDepth` join, best first, up to `budget` new URLs.
   * Returns the URLs that joined, for the journal.
   */
  startRound(round: number, maxDepth: number, budget: number): RoundUrl[] {
    const { depths, inlinks, rounds, urls } = this;
    const fresh = Int32Array.from(
      this.candidates.filter((id) => rounds[id] === CANDIDATE && depths[id] <= maxDepth),
    );
    fresh.sort((a, b) => depths[a] - depths[b] || inlinks[b] - inlinks[a] || this.byUrl(a, b));
    const joined: RoundUrl[] = [];
    for (const id of fresh.subarray(0, Math.max(0, Math.min(budget, fresh.length)))) {
      this.enqueue(id, round);
      joined.push([urls.url(id), depths[id]]);
    }
    this.candidates = this.candidates.filter((id) => rounds[id] === CANDIDATE);
    return joined;
  }

  /** Puts URLs into the current round directly (seeds, and the replay of a journaled round). */
  assign(urls: readonly RoundUrl[], round: number): void {
    for (const [url, depth] of urls) {
      const id = this.urls.id(url) ?? this.add(url, depth, 0, CANDIDATE, false);
      this.depths[id] = Math.min(this.depths[id], depth);
      if (!this.done[id] && this.rounds[id] < 0) this.enqueue(id, round);
    }
    this.candidates = this.candidates.filter((id) => this.rounds[id] === CANDIDATE);
  }

  /** PLDs with URLs queued in the current round. */
  activePlds(): string[] {
    const active: string[] = [];
    for (const [pld, queue] of this.queues) if (queue.size > 0) active.push(this.pldNames[pld]);
    return active;
  }

  /** How many URLs of `pld` are queued. */
  queuedFor(pld: string): number {
    const index = this.pldIndex.get(pld);
    return index === undefined ? 0 : (this.queues.get(index)?.size ?? 0);
  }

  /** PLDs of the candidates that would join the next round (for the round-end rule). */
  candidatePlds(maxDepth: number): Set<string> {
    const plds = new Set<string>();
    for (const id of this.candidates)
      if (this.rounds[id] === CANDIDATE && this.depths[id] <= maxDepth)
        plds.add(this.pldNames[this.pldOf(id)]);
    return plds;
  }

  /** Takes the best queued URL of `pld` (most in-links first). */
  take(pld: string): { url: string; depth: number } | undefined {
    const index = this.pldIndex.get(pld);
    const id = index === undefined ? undefined : this.queues.get(index)?.take();
    if (id === undefined) return undefined;
    this.queuedCount--;
    this.done[id] = 1;
    return { url: this.urls.url(id), depth: this.depths[id] };
  }

  /** Records a URL as done without taking it from a queue (journal replay). */
  markDone(url: string): void {
    const id = this.urls.id(url);
    if (id === undefined || this.done[id]) return;
    if (this.queues.get(this.pldOf(id))?.remove(id)) this.queuedCount--;
    this.done[id] = 1;
  }

  depthOf(url: string): number | undefined {
    const id = this.urls.id(url);
    return id === undefined ? undefined : this.depths[id];
  }

  private placeOf(id: number): FrontierPlace {
    const round = this.rounds[id];
    if (round === CANDIDATE) return 'candidate';
    if (round === FETCHED_ELSEWHERE) return 'elsewhere';
    return this.done[id] ? 'done' : 'queued';
  }

  private add(url: string, depth: number, inlinks: number, round: number, done: boolean): number {
    const id = this.urls.add(url);
    if (id === this.depths.length) {
      this.depths = doubled(this.depths);
      this.inlinks = doubled(this.inlinks);
      this.rounds = doubled(this.rounds);
      this.done = doubled(this.done);
      this.plds = doubled(this.plds);
    }
    this.depths[id] = depth;
    this.inlinks[id] = inlinks;
    this.rounds[id] = round;
    this.done[id] = done ? 1 : 0;
    this.plds[id] = UNKNOWN_PLD;
    return id;
  }

  private pldOf(id: number): number {
    if (this.plds[id] !== UNKNOWN_PLD) return this.plds[id];
    const name = urlPld(this.urls.url(id));
    let index = this.pldIndex.get(name);
    if (index === undefined) {
      index = this.pldNames.push(name) - 1;
      this.pldIndex.set(name, index);
    }
    this.plds[id] = index;
    return index;
  }

  private enqueue(id: number, round: number): void {
    this.rounds[id] = round;
    const pld = this.pldOf(id);
    let queue = this.queues.get(pld);
    if (!queue) {
      queue = new PldQueue(this.byUrl);
      this.queues.set(pld, queue);
    }
    queue.put(id, this.inlinks[id]);
    this.queuedCount++;
  }
}
