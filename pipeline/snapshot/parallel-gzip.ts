import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Bytes per gzip member: large enough that members cost nothing in size, small enough to overlap. */
const MEMBER_BYTES = 8 * 1024 * 1024;
/** Members compressed at once (zlib's async calls run on libuv's pool of 4 threads). */
const IN_FLIGHT = 4;

/**
 * Compresses `source` into `target` as consecutive gzip members of MEMBER_BYTES of input each,
 * compressed on several threads and written in order. Concatenated members are one valid gzip file
 * (RFC 1952, 2.2) that every gunzip (zlib, gzip, Python, DuckDB) decompresses to the whole input.
 */
export async function gzipFile(source: string, target: string, level: number): Promise<void> {
  const out = await open(target, 'w');
  try {
    const pending: Promise<Buffer>[] = [];
    const stream = createReadStream(source, { highWaterMark: MEMBER_BYTES });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const member = gzipAsync(chunk, { level });
      // awaited in order below; a failure is thrown there, not reported as unhandled meanwhile
      member.catch(() => {});
      pending.push(member);
      if (pending.length >= IN_FLIGHT) await out.write(await pending.shift()!);
    }
    for (const member of pending) await out.write(await member);
  } finally {
    await out.close();
  }
}
