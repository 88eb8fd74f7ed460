/** Hash-table slots per URL at most before the table doubles (a load factor of 1/2). */
const SLOTS_PER_URL = 2;
const EMPTY = 0;

/** FNV-1a over bytes [start, end) of `bytes`. */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/**
 * The URLs of a crawl, each stored once as UTF-8 bytes in one growing buffer and numbered in
 * the order they were added: a URL's id is its index. A crawl sees hundreds of thousands of URLs,
 * and as JS strings keyed in a Map each cost about twice its text (string header, map entry,
 * array slot) on V8's heap, whose size the collector then grows by a factor; here a URL costs its
 * bytes plus 16 (offset, hash, two table slots), outside the heap (`npm run bench frontier`).
 *
 * Ids are found through an open-addressing hash table over the bytes. `compare` orders two URLs
 * by their bytes: for the ASCII of a URL's href (every URL the crawl queues) that is the order
 * of the strings.
 */
export class UrlTable {
  private bytes = Buffer.allocUnsafe(1 << 16);
  /** Where URL i starts in `bytes`; URL i ends where URL i + 1 starts. */
  private starts = new Uint32Array(1024);
  private hashes = new Uint32Array(1024);
  /** id + 1 of the URL in each slot, EMPTY for none. */
  private table = new Int32Array(2048);
  private count = 0;
  private used = 0;

  get size(): number {
    return this.count;
  }

  /** The id of `url`, or undefined when it was never added. */
  id(url: string): number | undefined {
    const end = this.stage(url);
    const hash = hashOf(this.bytes, this.used, end);
    for (let slot = hash & (this.table.length - 1); ; slot = (slot + 1) & (this.table.length - 1)) {
      const entry = this.table[slot];
      if (entry === EMPTY) return undefined;
      if (this.hashes[entry - 1] === hash && this.equalsStaged(entry - 1, end)) return entry - 1;
    }
  }

  /** Adds `url`, which must not be in the table yet (ask `id` first), and returns its id. */
  add(url: string): number {
    const end = this.stage(url);
    const id = this.count;
    if (id + 1 >= this.starts.length) {
      this.starts = doubled(this.starts);
      this.hashes = doubled(this.hashes);
    }
    this.hashes[id] = hashOf(this.bytes, this.used, end);
    this.starts[id] = this.used;
    this.used = end;
    this.starts[id + 1] = end;
    this.count++;
    if (this.count * SLOTS_PER_URL > this.table.length) this.rehash(this.table.length * 2);
    else this.place(id);
    return id;
  }

  url(id: number): string {
    return this.bytes.toString('utf8', this.starts[id], this.starts[id + 1]);
  }

  /** Orders URLs `a` and `b` by their bytes. */
  compare(a: number, b: number): number {
    return this.bytes.compare(
      this.bytes,
      this.starts[b],
      this.starts[b + 1],
      this.starts[a],
      this.starts[a + 1],
    );
  }

  /** Writes `url` past the stored bytes (growing the buffer as needed) and returns where it ends. */
  private stage(url: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit
    const room = this.used + url.length * 3;
    if (room > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, room));
      this.bytes.copy(bigger, 0, 0, this.used);
      this.bytes = bigger;
    }
    return this.used + this.bytes.write(url, this.used, 'utf8');
  }

  private equalsStaged(id: number, end: number): boolean {
    const start = this.starts[id];
    const length = this.starts[id + 1] - start;
    return (
      length === end - this.used &&
      this.bytes.compare(this.bytes, this.used, end, start, start + length) === 0
    );
  }

  private place(id: number): void {
    const mask = this.table.length - 1;
    let slot = this.hashes[id] & mask;
    while (this.table[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.table[slot] = id + 1;
  }

  private rehash(slots: number): void {
    this.table = new Int32Array(slots);
    for (let id = 0; id < this.count; id++) this.place(id);
  }
}

/** A copy of `column` twice as long (the crawl's per-URL columns grow by doubling). */
export function doubled<C extends Int32Array | Uint32Array | Uint8Array>(column: C): C {
  const grown = new (column.constructor as new (length: number) => C)(column.length * 2);
  grown.set(column);
  return grown;
}
