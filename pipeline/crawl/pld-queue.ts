import TinyQueue from 'tinyqueue';

interface Ranked {
  readonly url: string;
  readonly inlinks: number;
}

function byInlinksThenUrl(a: Ranked, b: Ranked): number {
  return b.inlinks - a.inlinks || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);
}

/**
 * The queue of one pay-level domain: URLs with the most in-links first, ties by URL so that the
 * order is reproducible. In-link counts grow while the URL waits; instead of re-sorting, a bump
 * pushes a fresh entry and stale ones are skipped when they surface (lazy deletion).
 */
export class PldQueue {
  private readonly heap = new TinyQueue<Ranked>([], byInlinksThenUrl);
  private readonly current = new Map<string, number>();

  get size(): number {
    return this.current.size;
  }

  /** Queues `url`, or raises its rank when it is queued already. */
  put(url: string, inlinks: number): void {
    if (this.current.get(url) === inlinks) return;
    this.current.set(url, inlinks);
    this.heap.push({ url, inlinks });
  }

  has(url: string): boolean {
    return this.current.has(url);
  }

  /** Removes `url` if queued; its heap entry goes stale and is skipped later. */
  remove(url: string): boolean {
    return this.current.delete(url);
  }

  /** Removes and returns the best URL, or undefined when empty. */
  take(): string | undefined {
    for (let top = this.heap.pop(); top; top = this.heap.pop()) {
      if (this.current.get(top.url) === top.inlinks) {
        this.current.delete(top.url);
        return top.url;
      }
    }
    return undefined;
  }
}
