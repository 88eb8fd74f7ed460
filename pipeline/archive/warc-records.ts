import { createHash, type Hash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import type { ExchangeRecord, RawResponse } from '../web/index.ts';
import { type IndexNote, indexNote } from './cdxj-notes.ts';
import { IDENTICAL_PAYLOAD_DIGEST, type Referent, refersToHeaders, SERVER_NOT_MODIFIED } from './revisit.ts';

const gzip = promisify(zlib.gzip);
const WARC_VERSION = 'WARC/1.1';

/** A record as one gzip member, with what the CDXJ index needs of it (cdxj-notes.ts). */
export interface ArchivedMember {
  readonly bytes: Buffer;
  readonly note: IndexNote;
}

/** One exchange as WARC: its response record, and the request record tied to it, each one gzip member. */
export interface ExchangeMembers {
  readonly response: ArchivedMember;
  readonly request: ArchivedMember | null;
}

const digest = (hash: Hash) => `sha256:${hash.digest('hex')}`;

/**
 * A record's bytes as its own gzip member, the unit a WARC pointer (offset, length) names. warcio
 * lays the record out; the digests are computed here with Node's native SHA-256 (warcio skips its
 * own, WebAssembly, hashing when they are set: several times faster on small records), over the
 * block exactly as warcio writes it: its HTTP head, then the payload. A revisit's block is its HTTP
 * head alone and its payload digest the one of the record it refers to, set by its maker. A GET
 * request has no payload, and WARC/1.1 (5.9) gives no payload digest to a record without one: 9% of
 * a request record's gzip member. Its index note is read from the record's bytes before compression.
 */
async function member(
  record: WARCRecord,
  payload: readonly Buffer[] = [],
  knownPayloadDigest: string | null = null,
): Promise<ArchivedMember> {
  if (record.httpHeaders) {
    const blockHash = createHash('sha256').update(`${record.httpHeaders.toString()}\r\n`);
    for (const chunk of payload) blockHash.update(chunk);
    // a request's is set only for warcio to skip hashing, and taken out of the bytes below
    if (record.warcType !== 'revisit') {
      record.warcHeaders.headers.set('WARC-Payload-Digest', knownPayloadDigest ?? payloadDigest(payload));
    }
    record.warcHeaders.headers.set('WARC-Block-Digest', digest(blockHash));
  }
  const plain = await WARCSerializer.serialize(record, { gzip: false });
  const serialised = Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength);
  const bytes =
    record.warcType === 'request' && payload.length === 0 ? withoutPayloadDigest(serialised) : serialised;
  // Node's zlib, on its thread pool, compresses faster than warcio's own path
  return { bytes: await gzip(bytes), note: indexNote(bytes) };
}

/** The record without the WARC-Payload-Digest line of its WARC head (the block is untouched). */
function withoutPayloadDigest(record: Buffer): Buffer {
  const headEnd = record.indexOf('\r\n\r\n');
  const line = record.subarray(0, headEnd).indexOf('\r\nWARC-Payload-Digest:');
  if (line < 0) return record;
  const lineEnd = record.indexOf('\r\n', line + 2);
  return Buffer.concat([record.subarray(0, line), record.subarray(lineEnd)]);
}

/** WARC-Payload-Digest of a payload, as our writer gives it. */
function payloadDigest(payload: readonly Buffer[]): string {
  const hash = createHash('sha256');
  for (const chunk of payload) hash.update(chunk);
  return digest(hash);
}

/** The request head as sent, split into its request line and header pairs. */
function parseHead(head: string): { statusline: string; headers: [string, string][] } {
  const [statusline, ...lines] = head.split('\r\n').filter((line) => line !== '');
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  return { statusline, headers };
}

/**
 * The HTTP client removed the chunked transfer coding while reading, so the stored body is not
 * chunked: a header still saying so would make replay tools de-chunk it again. The original value
 * stays visible under another name.
 */
function storedHeaders(headers: RawResponse['headers']): [string, string][] {
  return headers.map(([name, value]): [string, string] =>
    name.toLowerCase() === 'transfer-encoding' ? [`X-Archive-Orig-${name}`, value] : [name, value],
  );
}

/**
 * The full response record archived earlier for an exchange's URL, when its payload has the digest
 * given (for a 304, whatever the digest: null); null when there is none. Given by the crawl's
 * archive from the URL's previous observation (crawl-archive.ts).
 */
export type EarlierRecord = (payloadDigest: string | null) => Promise<Referent | null>;

/**
 * What record a response is archived as: a `revisit` of profile server-not-modified for a 304
 * (referring to the record its validators came from, when known), a `revisit` of profile
 * identical-payload-digest for a whole, non-empty payload whose digest is that of the record
 * `earlier` names, else a `response` with its payload.
 */
async function responseKind(
  response: RawResponse,
  earlier: EarlierRecord | null,
): Promise<{ profile: string | null; referent: Referent | null; digest: string | null }> {
  if (response.status === 304) {
    return { profile: SERVER_NOT_MODIFIED, referent: (await earlier?.(null)) ?? null, digest: null };
  }
  if (earlier === null || response.truncated !== null || response.bodyBytes === 0) {
    return { profile: null, referent: null, digest: null };
  }
  const own = payloadDigest(response.body);
  const referent = await earlier(own);
  return referent?.payloadDigest === own
    ? { profile: IDENTICAL_PAYLOAD_DIGEST, referent, digest: own }
    : { profile: null, referent: null, digest: own };
}

/**
 * The WARC records of one exchange that got a response: `response` (status line, headers and body as
 * received, content-encoding kept), or a `revisit` with the status line and headers and no body
 * (responseKind), and `request` (the head as sent) with WARC-Concurrent-To naming the first. Null for
 * an exchange without a response: there is nothing to replay.
 */
export async function exchangeMembers(
  record: ExchangeRecord,
  earlier: EarlierRecord | null = null,
): Promise<ExchangeMembers | null> {
  const response = record.response;
  if (response === null) return null;
  const date = new Date(record.sentAt).toISOString();
  const common = { url: record.url, date, warcVersion: WARC_VERSION, keepHeadersCase: true } as const;
  const warcHeaders: Record<string, string> = {};
  if (record.remoteAddress !== null) warcHeaders['WARC-IP-Address'] = record.remoteAddress;
  if (response.truncated !== null) warcHeaders['WARC-Truncated'] = response.truncated;
  const { profile, referent, digest: ownDigest } = await responseKind(response, earlier);
  const payload = profile === null ? response.body : [];
  const responseRecord = WARCRecord.create(
    {
      ...common,
      type: profile === null ? 'response' : 'revisit',
      statusline: `HTTP/1.1 ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      httpHeaders: storedHeaders(response.headers),
      warcHeaders: referent === null ? warcHeaders : { ...warcHeaders, ...refersToHeaders(referent) },
    },
    payload,
  );
  // warcio names every revisit identical-payload-digest
  if (profile !== null) responseRecord.warcHeaders.headers.set('WARC-Profile', profile);
  const responseBytes = member(responseRecord, payload, ownDigest);
  if (record.requestHead === null) return { response: await responseBytes, request: null };
  const head = parseHead(record.requestHead);
  const requestRecord = WARCRecord.create(
    {
      ...common,
      type: 'request',
      statusline: head.statusline,
      httpHeaders: head.headers,
      warcHeaders: {
        'WARC-Concurrent-To': responseRecord.warcHeader('WARC-Record-ID') ?? '',
        ...(record.remoteAddress !== null ? { 'WARC-IP-Address': record.remoteAddress } : {}),
      },
    },
    [],
  );
  const [responseMember, requestMember] = await Promise.all([responseBytes, member(requestRecord)]);
  return { response: responseMember, request: requestMember };
}

/** What the warcinfo record at the start of each file says about the crawl that wrote it. */
export interface WarcInfo {
  readonly software: string;
  readonly userAgent: string;
  /** The crawl's configuration, as JSON on one line. */
  readonly configuration: string;
}

/** The warcinfo record that opens a file, as one gzip member. */
export async function warcinfoMember(filename: string, info: WarcInfo, at: number): Promise<ArchivedMember> {
  const record = WARCRecord.createWARCInfo(
    { filename, warcVersion: WARC_VERSION, date: new Date(at).toISOString() },
    {
      software: info.software,
      format: 'WARC File Format 1.1',
      conformsTo: 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
      'http-header-user-agent': info.userAgent,
      robots: 'obey',
      'observatory-configuration': info.configuration,
    },
  );
  return member(record);
}
