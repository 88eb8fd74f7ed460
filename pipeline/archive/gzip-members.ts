import { closeSync, fstatSync, readSync } from 'node:fs';
import zlib from 'node:zlib';
import { openRegularFileSync } from '../core/index.ts';

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
 * Why no member was read: `not_whole` (cut short, not gzip, or failing its CRC-32 or size) or
 * `too_large` (it inflates to more than the reader allows).
 */
export type MemberFailure = 'not_whole' | 'too_large';

/**
 * The complete gzip member at the start of `buf`, inflated (natively) and checked against its
 * CRC-32 and size, or why not. Inflating stops as soon as more than `maxInflated` bytes come out
 * (zlib's maxOutputLength), so a small member that inflates to gigabytes costs no more than the limit.
 */
export function inflateBounded(
  buf: Buffer,
  maxInflated = Number.POSITIVE_INFINITY,
): InflatedMember | MemberFailure {
  const start = deflateStart(buf);
  if (start === null) return 'not_whole';
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    // raw inflate stops at the end of this member's deflate stream and says how much it read
    const bound = Number.isFinite(maxInflated) ? { maxOutputLength: Math.max(1, maxInflated) } : {};
    inflated = zlib.inflateRawSync(buf.subarray(start), { info: true, ...bound }) as never;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'too_large' : 'not_whole';
  }
  const end = start + inflated.engine.bytesWritten + TRAILER;
  if (end > buf.length) return 'not_whole';
  const sound =
    buf.readUInt32LE(end - 8) === zlib.crc32(inflated.buffer) &&
    buf.readUInt32LE(end - 4) === inflated.buffer.length % 2 ** 32;
  return sound ? { length: end, body: inflated.buffer } : 'not_whole';
}

/**
 * The complete gzip member at the start of `buf`, inflated, or null when `buf` holds no complete,
 * sound member there within `maxInflated` bytes (see inflateBounded).
 */
export function inflateMember(buf: Buffer, maxInflated?: number): InflatedMember | null {
  const member = inflateBounded(buf, maxInflated);
  return typeof member === 'string' ? null : member;
}

/** The length of the complete gzip member at the start of `buf` (see inflateMember), or null. */
export function memberLength(buf: Buffer): number | null {
  return inflateMember(buf)?.length ?? null;
}

/** A whole gzip member of a file: where it starts, its length, and what it inflates to. */
export interface FileMember extends InflatedMember {
  readonly offset: number;
}

/** Where a file stopped being whole members, and why (gzipMembers' return value); null: at its end. */
export interface MembersEnd {
  readonly offset: number;
  readonly failure: MemberFailure;
}

/**
 * The whole gzip members at the start of `file`, in order, inflated natively; ends at the file's
 * end or at the first member that is not whole, and returns where and why it stopped there (null
 * at the end). Reads member by member, never more than `maxMemberBytes` at once (a member that
 * would need more counts as not whole) and inflates none past `maxInflated` bytes. Only a regular
 * file is opened (openRegularFileSync).
 */
export function* gzipMembers(
  file: string,
  maxMemberBytes = Number.POSITIVE_INFINITY,
  maxInflated = Number.POSITIVE_INFINITY,
): Generator<FileMember, MembersEnd | null> {
  const fd = openRegularFileSync(file);
  try {
    const size = fstatSync(fd).size;
    let offset = 0;
    let window = Buffer.alloc(0);
    let windowStart = 0;
    while (offset < size) {
      const member = inflateBounded(window.subarray(offset - windowStart), maxInflated);
      if (typeof member !== 'string') {
        yield { offset, ...member };
        offset += member.length;
        continue;
      }
      if (member === 'too_large') return { offset, failure: member };
      const have = windowStart + window.length - offset;
      if (offset + have >= size || have >= maxMemberBytes) return { offset, failure: member };
      const want = Math.min(Math.max(2 * have, FIRST_READ), maxMemberBytes, size - offset);
      window = Buffer.alloc(want);
      windowStart = offset;
      window = window.subarray(0, readSync(fd, window, 0, want, offset));
    }
    return null;
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
