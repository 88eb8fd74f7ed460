import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { crc32, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Bytes per gzip member: large enough that members cost nothing in size, small enough to overlap. */
const MEMBER_BYTES = 8 * 1024 * 1024;
/** Members compressed at once (zlib's async calls run on libuv's pool of 4 threads). */
const IN_FLIGHT = 4;
/** How often a file still being written is looked at for a member's worth of new bytes. */
const POLL_MS = 20;

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

async function readAt(path: string, offset: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The CRC-32 of a whole file, read a member's worth at a time. */
async function fileCrc(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    let crc = 0;
    for await (const chunk of handle.createReadStream({ highWaterMark: MEMBER_BYTES }))
      crc = crc32(chunk, crc);
    return crc;
  } finally {
    await handle.close();
  }
}

/**
 * Compresses `source` into `target` as consecutive gzip members of MEMBER_BYTES of input each,
 * compressed on several threads and written in order. Concatenated members are one valid gzip file
 * (RFC 1952, 2.2) that every gzip reader (zlib, gzip, Python, DuckDB) decompresses to the whole input.
 *
 * `source` may still be appended to until `writing` settles (DuckDB writing data.nq.gz's lines on
 * one thread): members are compressed as their bytes arrive, on the other core, instead of after
 * the whole file is written. A member may end anywhere, mid-line included.
 * The bytes read are then checked against the finished file (its CRC-32), so a writer that changed
 * bytes already read fails the compression instead of publishing other bytes. A failed `writing`
 * is thrown.
 */
export async function gzipFile(
  source: string,
  target: string,
  level: number,
  writing: Promise<unknown>,
): Promise<void> {
  let written = false;
  const settled = writing.then(
    () => {
      written = true;
    },
    () => {
      written = true;
    },
  );
  const out = await open(target, 'w');
  try {
    const pending: Promise<Buffer>[] = [];
    let offset = 0;
    let crc = 0;
    for (;;) {
      const finished = written;
      const size = await sizeOf(source);
      if (size - offset < MEMBER_BYTES && !(finished && size > offset)) {
        if (finished) break;
        await Promise.race([settled, sleep(POLL_MS)]);
        continue;
      }
      const chunk = await readAt(source, offset, Math.min(MEMBER_BYTES, size - offset));
      offset += chunk.length;
      crc = crc32(chunk, crc);
      const member = gzipAsync(chunk, { level });
      // awaited in order below; a failure is thrown there, not reported as unhandled meanwhile
      member.catch(() => {});
      pending.push(member);
      if (pending.length >= IN_FLIGHT) await out.write(await pending.shift()!);
    }
    await writing;
    for (const member of pending) await out.write(await member);
    // an empty input is one empty member, not an empty file: a 0-byte .gz is no gzip file (a week
    // in which every fetch failed was published so, and then refused by every reader)
    if (offset === 0) await out.write(await gzipAsync(Buffer.alloc(0), { level }));
    if ((await sizeOf(source)) !== offset || (await fileCrc(source)) !== crc) {
      throw new Error(`${source} changed while it was compressed`);
    }
  } finally {
    await out.close();
  }
}
