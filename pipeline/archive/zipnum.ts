import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { getSurt } from 'warcio';
import { ObservatoryError, openRegularFile } from '../core/index.ts';
import { inflateBounded } from './gzip-members.ts';

/**
 * The CDXJ index compressed as pywb's ZipNum cluster, the form Common Crawl serves its index in
 * and WACZ 1.1.1 packages (`indexes/index.cdx.gz` + `indexes/index.idx`): the sorted lines in
 * blocks of BLOCK_LINES, each block its own gzip member of `index.cdx.gz`, and a secondary index
 * `index.idx` with one line per block, `<first key>\t<file>\t<offset>\t<length>\t<block number>`
 * (the key being the block's first line up to its JSON: SURT and timestamp; blocks numbered from
 * 1), exactly as pywb's ZipNumIndexSource and ReplayWeb.page's loadIDX read it. A lookup binary
 * searches the secondary index and inflates only the blocks that can hold the URL's key.
 */

export const CDX_GZ_FILE = 'index.cdx.gz';
export const IDX_FILE = 'index.idx';

/**
 * Lines per block. Deflate looks back 32 KiB, about 115 of our ~280-byte lines, so larger blocks
 * barely compress better (the demo's week: 0.186 of the plain index's bytes at 300, 0.181 at
 * 3,000, pywb's default), while a lookup inflates and scans whole blocks (200,000 records: 0.4-0.5
 * ms a lookup at 300, 4.9-6.2 ms at 3,000; `npm run bench cdx-index`).
 */
export const BLOCK_LINES = 300;

/** Far beyond any block the writer makes (BLOCK_LINES lines of URLs within MAX_URL_LENGTH): a reader allocates no more. */
const MAX_BLOCK_BYTES = 16 * 1024 * 1024;
const MAX_BLOCK_INFLATED = 64 * 1024 * 1024;

const gzip = promisify(zlib.gzip);

/** A line of the secondary index: a block's first key and where the block lies. */
export interface IdxEntry {
  readonly key: string;
  readonly part: string;
  readonly offset: number;
  readonly length: number;
  readonly block: number;
}

/** What ZipNum sorts and searches by: a CDXJ line up to its JSON (SURT and timestamp). */
export function lineKey(line: string): string {
  const json = line.indexOf(' {');
  return json < 0 ? line : line.slice(0, json);
}

function idxLine(entry: IdxEntry): string {
  return `${entry.key}\t${entry.part}\t${entry.offset}\t${entry.length}\t${entry.block}`;
}

/**
 * Writes CDXJ lines, already sorted in byte order, as `index.cdx.gz` and `index.idx` in `dir`;
 * holds one block at a time.
 */
export async function writeZipNum(
  sorted: AsyncIterable<string> | Iterable<string>,
  dir: string,
  blockLines = BLOCK_LINES,
): Promise<{ lines: number; blocks: number }> {
  const cdx = await open(join(dir, CDX_GZ_FILE), 'w');
  const idx = await open(join(dir, IDX_FILE), 'w');
  let lines = 0;
  let blocks = 0;
  let offset = 0;
  let block: string[] = [];
  const flush = async () => {
    const member = await gzip(`${block.join('\n')}\n`);
    await cdx.write(member);
    blocks++;
    const key = lineKey(block[0]);
    await idx.write(`${idxLine({ key, part: CDX_GZ_FILE, offset, length: member.length, block: blocks })}\n`);
    offset += member.length;
    block = [];
  };
  try {
    for await (const line of sorted) {
      block.push(line);
      lines++;
      if (block.length === blockLines) await flush();
    }
    if (block.length > 0) await flush();
  } finally {
    await cdx.close();
    await idx.close();
  }
  return { lines, blocks };
}

function corruptIndex(path: string, problem: string): ObservatoryError {
  return new ObservatoryError('corrupt', `${path}: ${problem}`);
}

/** The secondary index of `dir`, each line checked: five fields, blocks numbered from 1, each starting where the last ended. */
export async function readIdx(dir: string): Promise<IdxEntry[]> {
  const path = join(dir, IDX_FILE);
  const handle = await openRegularFile(path);
  let text: string;
  try {
    text = await readFile(handle, 'utf8');
  } finally {
    await handle.close();
  }
  if (text !== '' && !text.endsWith('\n')) throw corruptIndex(path, 'its last line is not whole');
  const entries: IdxEntry[] = [];
  let offset = 0;
  for (const line of text.split('\n').slice(0, -1)) {
    const fields = line.split('\t');
    const number = entries.length + 1;
    const [key, part, start, length, block] = fields;
    const whole = (s: string | undefined) => (s !== undefined && /^\d{1,15}$/.test(s) ? Number(s) : -1);
    if (fields.length !== 5 || key === '' || part !== CDX_GZ_FILE) {
      throw corruptIndex(
        path,
        `line ${number} is not <key>\\t${CDX_GZ_FILE}\\t<offset>\\t<length>\\t<block>`,
      );
    }
    if (whole(start) !== offset || whole(block) !== number) {
      throw corruptIndex(
        path,
        `line ${number} names block ${block} at ${start}, expected block ${number} at ${offset}`,
      );
    }
    const bytes = whole(length);
    if (bytes < 1 || bytes > MAX_BLOCK_BYTES)
      throw corruptIndex(path, `line ${number}: ${length} is not the length of a block`);
    entries.push({ key, part, offset, length: bytes, block: number });
    offset += bytes;
  }
  return entries;
}

/** The lines of one block, read at its place in `index.cdx.gz` (one whole gzip member, ending in a newline). */
async function readBlock(
  handle: Awaited<ReturnType<typeof openRegularFile>>,
  path: string,
  entry: IdxEntry,
): Promise<string[]> {
  const bytes = Buffer.alloc(entry.length);
  const { bytesRead } = await handle.read(bytes, 0, entry.length, entry.offset);
  const member = inflateBounded(bytes.subarray(0, bytesRead), MAX_BLOCK_INFLATED);
  if (typeof member === 'string' || member.length !== entry.length) {
    throw corruptIndex(
      path,
      `block ${entry.block} is not one whole gzip member of ${entry.length} bytes at ${entry.offset}`,
    );
  }
  const text = member.body.toString('utf8');
  if (!text.endsWith('\n')) throw corruptIndex(path, `block ${entry.block} does not end with a whole line`);
  return text.slice(0, -1).split('\n');
}

/**
 * Every line of a ZipNum index, block by block, checked against its secondary index: each block a
 * whole gzip member exactly where its line says, the blocks covering `index.cdx.gz` to its last
 * byte, each block's first key the one its line names, every line `<key> {<json>}`, and the lines
 * in byte order throughout.
 * What `verify` reads; anything else is `corrupt`, naming the file and the block.
 */
export async function* zipNumLines(dir: string): AsyncGenerator<string> {
  const entries = await readIdx(dir);
  const path = join(dir, CDX_GZ_FILE);
  const handle = await openRegularFile(path);
  try {
    let previous: Buffer | null = null;
    for (const entry of entries) {
      const lines = await readBlock(handle, path, entry);
      if (lineKey(lines[0]) !== entry.key) {
        throw corruptIndex(
          path,
          `block ${entry.block} starts with ${lineKey(lines[0])}, ${IDX_FILE} says ${entry.key}`,
        );
      }
      for (const line of lines) {
        const bytes = Buffer.from(line);
        if (!line.includes(' {') || !line.endsWith('}')) {
          throw corruptIndex(path, `block ${entry.block} holds a line that is not <key> {<json>}`);
        }
        if (previous !== null && Buffer.compare(previous, bytes) > 0) {
          throw corruptIndex(path, `block ${entry.block}: its lines are not sorted in byte order`);
        }
        previous = bytes;
        yield line;
      }
    }
    const end =
      entries.length === 0 ? 0 : entries[entries.length - 1].offset + entries[entries.length - 1].length;
    const { size } = await handle.stat();
    if (end !== size) throw corruptIndex(path, `its blocks end at byte ${end}, the file at ${size}`);
  } finally {
    await handle.close();
  }
}

/** A capture as a CDXJ line's JSON gives it (strings, as Webrecorder's indexer writes them). */
export type CdxjCapture = Readonly<Record<string, string>>;

/** A ZipNum index opened for lookups: its secondary index in memory (one line per block), its blocks read on demand. */
export interface ZipNumIndex {
  /** The captures of `url` (its JSON's `url` exactly), in the index's order. */
  captures(url: string): Promise<CdxjCapture[]>;
}

/**
 * Opens the ZipNum index of `dir` for lookups by URL: a binary search of the secondary index for
 * the blocks whose range can hold the URL's SURT (the last block starting before it, and every
 * block starting with it), then only those blocks are read.
 */
export async function openZipNum(dir: string): Promise<ZipNumIndex> {
  const entries = await readIdx(dir);
  const keys = entries.map((e) => Buffer.from(e.key));
  const path = join(dir, CDX_GZ_FILE);
  return {
    async captures(url) {
      const surt = getSurt(url);
      const prefix = Buffer.from(`${surt} `);
      // the first block whose first key is not before the SURT's lines
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (Buffer.compare(keys[mid], prefix) < 0) lo = mid + 1;
        else hi = mid;
      }
      const blocks = lo > 0 ? [entries[lo - 1]] : [];
      for (let i = lo; i < keys.length && keys[i].subarray(0, prefix.length).equals(prefix); i++) {
        blocks.push(entries[i]);
      }
      if (blocks.length === 0) return [];
      const found: CdxjCapture[] = [];
      const handle = await openRegularFile(path);
      try {
        const start = `${surt} `;
        for (const entry of blocks) {
          for (const line of await readBlock(handle, path, entry)) {
            if (!line.startsWith(start)) continue;
            let capture: CdxjCapture;
            try {
              capture = JSON.parse(line.slice(line.indexOf(' {') + 1));
            } catch {
              throw corruptIndex(path, `block ${entry.block} holds a line whose JSON does not parse`);
            }
            if (capture.url === url) found.push(capture);
          }
        }
      } finally {
        await handle.close();
      }
      return found;
    },
  };
}
