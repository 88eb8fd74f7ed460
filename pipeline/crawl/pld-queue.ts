/** Orders two queued items that have the same number of in-links. */
export type Tiebreak<T> = (a: T, b: T) => number;

const byUrl: Tiebreak<string> = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The queue of one pay-level domain: URLs with the most in-links first, ties by URL so that the
 * order is reproducible. In-link counts grow while the URL waits; instead of re-sorting, a bump
 * pushes a fresh entry and stale ones are skipped when they surface (lazy deletion).
 * The heap is two parallel arrays (items, ranks), not an object per entry: the frontier queues a
 * million URLs at once. Items are URLs, or the frontier's URL ids with a tiebreak that compares
 * their URLs.
 */
export class PldQueue<T = string> {
  private readonly items: T[] = [];
  private readonly ranks: number[] = [];
  private readonly current = new Map<T, number>();
  private readonly tiebreak: Tiebreak<T>;

  /** `tiebreak` is needed when items are not URLs (the default compares them as strings). */
  constructor(tiebreak: Tiebreak<T> = byUrl as Tiebreak<unknown>) {
    this.tiebreak = tiebreak;
  }

  get size(): number {
    return this.current.size;
  }

  /** Queues `item`, or raises its rank when it is queued already. */
  put(item: T, inlinks: number): void {
    if (this.current.get(item) === inlinks) return;
    this.current.set(item, inlinks);
    this.items.push(item);
    this.ranks.push(inlinks);
    this.up(this.items.length - 1);
  }

  has(item: T): boolean {
    return this.current.has(item);
  }

  /** Removes `item` if queued; its heap entry goes stale and is skipped later. */
  remove(item: T): boolean {
    return this.current.delete(item);
  }

  /** Removes and returns the best item, or undefined when empty. */
  take(): T | undefined {
    while (this.items.length > 0) {
      const item = this.items[0];
      const rank = this.ranks[0];
      const lastItem = this.items.pop()!;
      const lastRank = this.ranks.pop()!;
      if (this.items.length > 0) {
        this.items[0] = lastItem;
        this.ranks[0] = lastRank;
        this.down(0);
      }
      if (this.current.get(item) === rank) {
        this.current.delete(item);
        return item;
      }
    }
    return undefined;
  }

  /** Whether heap entry i comes before entry j. */
  private before(i: number, j: number): boolean {
    const d = this.ranks[j] - this.ranks[i];
    return d !== 0 ? d < 0 : this.tiebreak(this.items[i], this.items[j]) < 0;
  }

  private swap(i: number, j: number): void {
    const item = this.items[i];
    this.items[i] = this.items[j];
    this.items[j] = item;
    const rank = this.ranks[i];
    this.ranks[i] = this.ranks[j];
    this.ranks[j] = rank;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const best = left + 1 < n && this.before(left + 1, left) ? left + 1 : left;
      if (!this.before(best, i)) return;
      this.swap(i, best);
      i = best;
    }
  }
}
