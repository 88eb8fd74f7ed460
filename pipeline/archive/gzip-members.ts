import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import zlib from 'node:zlib';

const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const FHCRC = 2;
const TRAILER = 8;
const FIRST_READ = 1 << 20;

/** Where the deflate data of the gzip member at the start of `buf` begins (RFC 1952 2.3), or null. */
function deflateStart(buf: Buffer): number | null {
  if (buf.length < 10 || buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) return null;
  const flags = buf[3];
  let at = 10;
  if (flags & FEXTRA) at = buf.length >= at + 2 ? at + 2 + buf.readUInt16LE(at) : buf.length + 1;
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const zero = buf.indexOf(0, at);
      at = zero === -1 ? buf.length + 1 : zero + 1;
    }
  }
  if (flags & FHCRC) at += 2;
  return at <= buf.length ? at : null;
}

/** A complete gzip member: its length in the file and what it inflates to. */
export interface InflatedMember {
  readonly length: number;
  readonly body: Buffer;
}

/**
 * The complete gzip member at the start of `buf`, inflated (natively), checked against its CRC-32
 * and size; null when `buf` holds no complete, sound member there (cut short, or not gzip).
 */
export function inflateMember(buf: Buffer): InflatedMember | null {
  const start = deflateStart(buf);
  if (start === null) return null;
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    // raw inflate stops at the end of this member's deflate stream and says how much it read
    inflated = zlib.inflateRawSync(buf.subarray(start), { info: true }) as never;
  } catch {
    return null;
  }
  const end = start + inflated.engine.bytesWritten + TRAILER;
  if (end > buf.length) return null;
  const sound =
    buf.readUInt32LE(end - 8) === zlib.crc32(inflated.buffer) &&
    buf.readUInt32LE(end - 4) === inflated.buffer.length % 2 ** 32;
  return sound ? { length: end, body: inflated.buffer } : null;
}

/** The length of the complete gzip member at the start of `buf` (see inflateMember), or null. */
export function memberLength(buf: Buffer): number | null {
  return inflateMember(buf)?.length ?? null;
}

/** A whole gzip member of a file: where it starts, its length, and what it inflates to. */
export interface FileMember extends InflatedMember {
  readonly offset: number;
}

/**
 * The whole gzip members at the start of `file`, in order, inflated natively; ends at the file's
 * end or at the first member that is not whole. Reads member by member, never more than
 * `maxMemberBytes` at once (a member that would need more counts as not whole).
 */
export function* gzipMembers(file: string, maxMemberBytes = Number.POSITIVE_INFINITY): Generator<FileMember> {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    let offset = 0;
    let window = Buffer.alloc(0);
    let windowStart = 0;
    while (offset < size) {
      const member = inflateMember(window.subarray(offset - windowStart));
      if (member !== null) {
        yield { offset, ...member };
        offset += member.length;
        continue;
      }
      const have = windowStart + window.length - offset;
      if (offset + have >= size || have >= maxMemberBytes) break;
      const want = Math.min(Math.max(2 * have, FIRST_READ), maxMemberBytes, size - offset);
      window = Buffer.alloc(want);
      windowStart = offset;
      window = window.subarray(0, readSync(fd, window, 0, want, offset));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * How many bytes at the start of `file` are whole gzip members: what a file torn by a crash is cut
 * back to (see gzipMembers; the bound must cover the largest member the writer writes).
 */
export function completeMembersBytes(file: string, maxMemberBytes: number): number {
  let whole = 0;
  for (const member of gzipMembers(file, maxMemberBytes)) whole = member.offset + member.length;
  return whole;
}
