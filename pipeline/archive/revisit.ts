import { join } from 'node:path';
import zlib from 'node:zlib';
import { openRegularFile, type WarcPointer } from '../core/index.ts';
import { type PlainHead, plainHead } from './cdxj-fields.ts';

/** WARC/1.1 6.7.2: the payload is the one of the record referred to, byte for byte. */
export const IDENTICAL_PAYLOAD_DIGEST = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
/** WARC/1.1 6.7.3: the server answered 304 Not Modified to a conditional request. */
export const SERVER_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

/**
 * Where the record a revisit refers to lies, beside the standard WARC-Refers-To-* fields, which
 * name it but leave finding it to an index: our readers go to it in one read, and the manifest's
 * `dependsOn` is made of these (docs/archive.md, "Revisits").
 */
const LOCATION = {
  filename: 'WARC-Refers-To-Filename',
  offset: 'WARC-Refers-To-Offset',
  length: 'WARC-Refers-To-Length',
} as const;

/** A full response record that revisits may refer to: its identity, its payload's digest and where it lies. */
export interface Referent {
  readonly recordId: string;
  readonly uri: string;
  readonly date: string;
  readonly payloadDigest: string;
  /** In the WARC files of the snapshot the file name begins with (snapshotOfWarcFile). */
  readonly pointer: WarcPointer;
}

/** The WARC headers of a revisit of `referent`. */
export function refersToHeaders(referent: Referent): Record<string, string> {
  return {
    'WARC-Refers-To': referent.recordId,
    'WARC-Refers-To-Target-URI': referent.uri,
    'WARC-Refers-To-Date': referent.date,
    'WARC-Payload-Digest': referent.payloadDigest,
    [LOCATION.filename]: referent.pointer.filename,
    [LOCATION.offset]: String(referent.pointer.offset),
    [LOCATION.length]: String(referent.pointer.length),
  };
}

/** What a revisit's WARC head says of the record it refers to; null when it does not say all of it. */
export function referentOf(head: Pick<PlainHead, 'get'>): Referent | null {
  const [recordId, uri, date, payloadDigest, filename, offset, length] = [
    'warc-refers-to',
    'warc-refers-to-target-uri',
    'warc-refers-to-date',
    'warc-payload-digest',
    LOCATION.filename.toLowerCase(),
    LOCATION.offset.toLowerCase(),
    LOCATION.length.toLowerCase(),
  ].map((name) => head.get(name));
  if (!recordId || !uri || !date || !payloadDigest || !filename || !offset || !length) return null;
  if (!/^\d{1,15}$/.test(offset) || !/^\d{1,15}$/.test(length)) return null;
  return {
    recordId,
    uri,
    date,
    payloadDigest,
    pointer: { filename, offset: Number(offset), length: Number(length) },
  };
}

/** Compressed bytes read to find a record's WARC head: heads are a few hundred bytes, deflate only shrinks them. */
const HEAD_READ = 16 * 1024;

/**
 * The full response record behind the record at `pointer` in `dir`: that record itself when it is a
 * response other than a 304, the one it refers to when it is a revisit that says where (a revisit
 * never refers to another revisit), else null. Reads the start of its gzip member only, so that a crawl asks this
 * of an earlier observation for the cost of one small read; the record is not checked, only its
 * WARC head read: what refers to it is checked by its readers (read-response.ts).
 */
export async function responseBehind(dir: string, pointer: WarcPointer): Promise<Referent | null> {
  let handle: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    handle = await openRegularFile(join(dir, pointer.filename));
  } catch {
    return null;
  }
  try {
    const bytes = Buffer.alloc(Math.min(pointer.length, HEAD_READ));
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, pointer.offset);
    // a prefix of a member: inflate what it holds, without asking for its end
    const start = zlib.gunzipSync(bytes.subarray(0, bytesRead), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const head = plainHead(start, 0);
    if (head === null) return null;
    const type = head.get('warc-type');
    if (type === 'revisit') return referentOf(head);
    const [recordId, uri, date, payloadDigest] = [
      'warc-record-id',
      'warc-target-uri',
      'warc-date',
      'warc-payload-digest',
    ].map((name) => head.get(name));
    if (type !== 'response' || !recordId || !uri || !date || !payloadDigest) return null;
    // a 304 archived as a response (before revisits were written) has no payload to refer to
    if (/^HTTP\/\S+ 304\b/.test(start.toString('latin1', head.end, head.end + 16))) return null;
    return { recordId, uri, date, payloadDigest, pointer };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
