import { CDXIndexer, getSurt } from 'warcio';

/**
 * A record's CDXJ fields read from its heads, exactly as warcio's CDXIndexer (Webrecorder's indexer,
 * whose lines pywb and ReplayWeb.page read) takes them, for records whose heads are plain: printable
 * ASCII, every header line a token name, a colon and a value. warcio's parser then reads them just
 * so (values trimmed, empty ones dropped, repeated names joined with ", " by Headers); any other
 * record is for the indexer itself (cdxj.ts).
 */

const GET = Buffer.from('GET ');
const CRLF = '\r\n';
const HEAD_END = Buffer.from('\r\n\r\n');
/** A header line warcio's parser and the WHATWG Headers it fills take as they are: a token, a colon, a value. */
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):(.*)$/;
const PRINTABLE = /^[\x20-\x7e]*$/;

/** A plain head's header values by lower-case name, as Headers.get gives them, and where its block starts. */
export interface PlainHead {
  readonly statusline: string;
  readonly end: number;
  get(name: string): string | undefined;
}

/** The head (status line, header lines, blank line) at `start` of an inflated record, when plain; null otherwise. */
export function plainHead(record: Buffer, start: number): PlainHead | null {
  const end = record.indexOf(HEAD_END, start);
  if (end < 0) return null;
  const [first, ...lines] = record.toString('latin1', start, end).split(CRLF);
  const statusline = first.trimEnd();
  if (statusline === '' || !PRINTABLE.test(first)) return null;
  const headers = new Map<string, string>();
  for (const line of lines) {
    const m = HEADER_LINE.exec(line);
    if (m === null || !PRINTABLE.test(line)) return null;
    const value = m[2].trim();
    if (value === '') continue;
    const name = m[1].toLowerCase();
    const before = headers.get(name);
    headers.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return { statusline, end: end + HEAD_END.length, get: (name) => headers.get(name) };
}

/**
 * Whether a record with a plain WARC head is one these fields know: a response, a revisit with an
 * HTTP head, warcinfo, or a GET request (the indexer pairs a request of another method with its
 * response and changes its key).
 */
export function knownRecord(record: Buffer, warc: PlainHead): boolean {
  const type = warc.get('warc-type');
  if (type === 'request') return record.subarray(warc.end, warc.end + GET.length).equals(GET);
  if (type === 'revisit') return Number(warc.get('content-length') ?? 0) > 0;
  return type === 'response' || type === 'warcinfo';
}

/** Whether a known record has a line of the index: a response or a revisit (knownRecord). */
export function indexedType(warc: PlainHead): boolean {
  const type = warc.get('warc-type');
  return type === 'response' || type === 'revisit';
}

/** A response's (or revisit's) CDXJ fields but its place: urlkey, timestamp, url, mime, status, digest, in the indexer's order. */
export type ResponseFields = Record<string, unknown>;

/**
 * The fields of a response or revisit record whose heads are both plain, as CDXIndexer.getField
 * makes each (null: its HTTP head is not plain, or not inside the record's block). A revisit's mime
 * is `warc/revisit`, whatever its HTTP head says, so replay tools look its payload up by digest.
 */
export function responseFields(record: Buffer, warc: PlainHead): ResponseFields | null {
  const url = warc.get('warc-target-uri');
  const blockLength = Number(warc.get('content-length') ?? 0);
  const http = plainHead(record, warc.end);
  if (url === undefined || http === null || http.end > warc.end + blockLength) return null;
  const parts = http.statusline.split(' ');
  const contentType = http.get('content-type');
  const digest = warc.get('warc-payload-digest');
  const fields: ResponseFields = {
    urlkey: getSurt(url),
    timestamp: (warc.get('warc-date') ?? '').replace(/[-:T]/g, '').slice(0, 14),
    url,
  };
  if (warc.get('warc-type') === 'revisit') fields.mime = 'warc/revisit';
  else if (contentType !== undefined) fields.mime = contentType.split(';', 1)[0]?.trim();
  fields.status = parts.length > 1 ? Number(parts[1]) : '';
  if (digest !== undefined) fields.digest = digest.split(':', 2)[1];
  return fields;
}

/** Where a record's gzip member lies in its WARC file. */
export interface MemberPlace {
  readonly filename: string;
  readonly offset: number;
  readonly length: number;
}

const indexer = new CDXIndexer({ format: 'cdxj' });

/** A CDXJ line as the indexer serialises an entry (offset, length and status as strings). */
export function cdxjLine(entry: Record<string, unknown>): string {
  return indexer.serializeCDXJ(entry).trimEnd();
}

/** The line of a response whose fields are known, at its member's place. */
export function placedLine(fields: ResponseFields, place: MemberPlace): string {
  return cdxjLine({ ...fields, length: place.length, offset: place.offset, filename: place.filename });
}
