/**
 * Seeded randomness. Every property of the simulated Web is a pure function of the seed and a few
 * integers (document, version, ...), so that nothing has to be stored: a document's content is
 * recomputed on each request and is the same every time.
 */

/** A 32-bit hash of a sequence of integers (murmur3 finalizer over a running mix). */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    h = (h + Math.imul(Math.floor(p / 4294967296) | 0, 0x27d4eb2f)) | 0;
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/** A uniform number in [0, 1) from a sequence of integers. */
export function unit(...parts: number[]): number {
  return hash32(...parts) / 4294967296;
}

/** A 32-bit hash of a string, to fold seeds and names into the integer streams. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return hash32(h >>> 0);
}

/** A stream of uniform numbers (mulberry32) for the few places that draw many values in a row. */
export interface RandomStream {
  next(): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  exponential(mean: number): number;
}

/** A stream seeded from integers: the same parts give the same sequence. */
export function randomStream(...parts: number[]): RandomStream {
  let a = hash32(...parts);
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    exponential: (mean) => -mean * Math.log(1 - next()),
  };
}

/** Index into `weights` drawn with probability proportional to each weight, from a uniform `u`. */
export function pickWeighted(weights: readonly number[], u: number): number {
  let total = 0;
  for (const w of weights) total += w;
  let x = u * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i];
    if (x < 0) return i;
  }
  return weights.length - 1;
}
