/** A satisfiable single byte range of a file: first and last byte, both inclusive (as in Content-Range). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

const SINGLE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * What a `Range` header asks of a file of `size` bytes (RFC 9110 §14): `'whole'` when there is no
 * header, it is not in bytes, is malformed or asks for several ranges (a server may ignore Range,
 * and Parquet readers ask for one range at a time), `'unsatisfiable'` (answered 416) when no byte
 * of it is in the file, else the range clamped to the file.
 */
export function byteRange(header: string | undefined, size: number): ByteRange | 'whole' | 'unsatisfiable' {
  const m = header === undefined ? null : SINGLE.exec(header);
  if (m === null) return 'whole';
  const [, first, last] = m;
  if (first === '') {
    // suffix range: the last n bytes; none of an empty file, and `-0` asks for no byte at all
    if (last === '') return 'whole';
    const n = Number(last);
    return n === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.POSITIVE_INFINITY : Number(last);
  if (end < start) return 'whole';
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
