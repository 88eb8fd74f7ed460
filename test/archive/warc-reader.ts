import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { CDXIndexer } from 'warcio';

/** A WARC record as node-warc (a second, independent parser) reads it. */
export interface ParsedRecord {
  readonly warcHeader: Record<string, string>;
  readonly httpInfo: { statusCode?: number | string; headers: Record<string, string> } | null;
  readonly content: Buffer | null;
}

interface StreamTransform extends Transform {
  buffered: Buffer | undefined;
  _consumeChunk(chunk: Buffer, done: (error?: Error | null) => void, pushLast: boolean): void;
}

const { WARCStreamTransform } = createRequire(import.meta.url)('node-warc') as {
  WARCStreamTransform: new () => StreamTransform;
};

/**
 * node-warc 3.3.1's stream parser calls its flush callback twice when the last record is still
 * buffered (always, at the end of a file), which Node 24 turns into ERR_MULTIPLE_CALLBACK and the
 * loss of that record. Same parser, flush called back once.
 */
function recordParser(): StreamTransform {
  const parser = new WARCStreamTransform();
  parser._flush = (done) => {
    const last = parser.buffered;
    parser.buffered = undefined;
    if (last) parser._consumeChunk(last, done, true);
    else done();
  };
  return parser;
}

/** Every record of a .warc.gz file, read by node-warc. */
export async function readWithNodeWarc(file: string): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  const parsed = createReadStream(file).pipe(zlib.createGunzip()).pipe(recordParser());
  for await (const record of parsed as AsyncIterable<ParsedRecord>) records.push(record);
  return records;
}

/** One decompressed record split by the WARC/1.1 grammar: header block, then Content-Length bytes of block. */
export interface SplitRecord {
  readonly headers: Map<string, string>;
  readonly block: Buffer;
  /** Bytes after the block: must be exactly the two CRLFs that end a record. */
  readonly rest: Buffer;
}

export function splitRecord(record: Buffer): SplitRecord {
  const end = record.indexOf('\r\n\r\n');
  const lines = record.subarray(0, end).toString('utf8').split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const start = end + 4;
  const length = Number(headers.get('content-length'));
  return { headers, block: record.subarray(start, start + length), rest: record.subarray(start + length) };
}

/** The payload of an HTTP block: what follows the HTTP head. */
export function httpPayload(block: Buffer): Buffer {
  return block.subarray(block.indexOf('\r\n\r\n') + 4);
}

export const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The bytes a pointer names, decompressed: exactly one gzip member must be there. */
export function pointedRecord(dir: string, pointer: { filename: string; offset: number; length: number }) {
  const file = readFileSync(`${dir}/${pointer.filename}`);
  const slice = file.subarray(pointer.offset, pointer.offset + pointer.length);
  return { slice, record: zlib.gunzipSync(slice) };
}

/** The HTTP responses archived in a snapshot folder's WARC files: how many, their bytes, how many were 304. */
export interface ArchivedResponses {
  readonly responses: number;
  /** Bytes of the responses as received: status line, headers and body (a revisit's body is its referent's). */
  readonly bytes: number;
  readonly notModified: number;
}

/** The payload bytes of the record an identical-payload revisit refers to, in its snapshot folder beside `folder`. */
function referredPayloadBytes(folder: string, head: string): number {
  const field = (name: string) => new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(head)?.[1] ?? '';
  const filename = field('WARC-Refers-To-Filename');
  const offset = Number(field('WARC-Refers-To-Offset'));
  const length = Number(field('WARC-Refers-To-Length'));
  const snapshot = filename.replace(/-\d{5}\.warc\.gz$/, '');
  const { record } = pointedRecord(join(folder, '..', snapshot), { filename, offset, length });
  return httpPayload(splitRecord(record).block).length;
}

/**
 * Walks every record of every `.warc.gz` in `folder` by its Content-Length and sums its responses:
 * response records, and revisits (a 304's, or an unchanged body's, counted with the body it refers to).
 */
export function archivedResponses(folder: string): ArchivedResponses {
  let responses = 0;
  let bytes = 0;
  let notModified = 0;
  for (const name of readdirSync(folder).filter((f) => f.endsWith('.warc.gz'))) {
    const all = zlib.gunzipSync(readFileSync(join(folder, name)));
    for (let at = 0; at < all.length; ) {
      const headEnd = all.indexOf('\r\n\r\n', at);
      const head = all.toString('latin1', at, headEnd);
      const length = Number(/\r\nContent-Length: (\d+)/i.exec(head)?.[1]);
      const block = all.subarray(headEnd + 4, headEnd + 4 + length);
      const type = /\r\nWARC-Type: (response|revisit)\r?$/im.exec(head)?.[1];
      if (type !== undefined) {
        responses++;
        bytes += length;
        if (type === 'revisit' && /\r\nWARC-Profile: \S*identical-payload-digest\r?$/im.test(head))
          bytes += referredPayloadBytes(folder, head);
        if (block.toString('latin1', 0, 13) === 'HTTP/1.1 304 ') notModified++;
      }
      // a record ends with its block and two CRLFs
      at = headEnd + 4 + length + 4;
    }
  }
  return { responses, bytes, notModified };
}

/** The CDXJ lines Webrecorder's indexer (warcio) writes reading the gzipped WARC files `files` of `dir` itself. */
export async function indexerLines(dir: string, files: readonly string[]): Promise<string[]> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const lines: string[] = [];
  const sources = files.map((filename) => ({ filename, reader: createReadStream(join(dir, filename)) }));
  for await (const entry of indexer.iterIndex(sources)) lines.push(indexer.serializeCDXJ(entry).trimEnd());
  return lines;
}
