import { join } from 'node:path';
import { CDXIndexer, getSurt, WARCParser } from 'warcio';
import { type FileMember, gzipMembers } from './gzip-members.ts';

/**
 * The lines of the CDXJ index of WARC files, as pywb and ReplayWeb.page read it: one line per
 * response record, `SURT timestamp {"url", "mime", "status", "digest", "length", "offset",
 * "filename"}`, in the files' order. The index is these lines sorted in byte order (as `LC_ALL=C
 * sort` gives), which the publisher does on disk so that a large crawl's index is never held in
 * memory.
 *
 * The lines are exactly those Webrecorder's indexer (warcio's CDXIndexer) writes, so the keys are
 * canonicalised as their replay tools expect (its own SURT function makes them). Its parser reads
 * every record's whole payload through JavaScript streams, half of the index's CPU besides
 * inflating (27,478 responses of a real crawl: 3.1 s against 1.5 s for inflating alone), so a
 * record whose heads are plain (printable ASCII, one `Name: value` per line, the record types and
 * GET requests our crawler writes) is read here from its heads alone, as that parser reads them;
 * any other response is handed to the indexer alone, and a run of records naming one URI with a
 * record this reading does not know (another type, a request other than GET, which the indexer
 * pairs with its response) is handed to it as that run. Every record is a gzip member of its own
 * (docs/archive.md), inflated natively.
 */
export async function* cdxjEntries(dir: string, files: readonly string[]): AsyncGenerator<string> {
  for (const filename of files) {
    // the indexer pairs a record only with the records next to it that name the same URI: each
    // run of such records is indexed as the indexer indexes it within the whole file
    let run: HeadedMember[] = [];
    let runUri: string | null = null;
    for (const member of gzipMembers(join(dir, filename))) {
      const head = plainHead(member.body, 0);
      const uri = head === null ? await targetUri(member.body) : (head.get('warc-target-uri') ?? null);
      if (run.length > 0 && uri !== runUri) {
        yield* runLines(filename, run);
        run = [];
      }
      run.push({ member, head });
      runUri = uri;
    }
    if (run.length > 0) yield* runLines(filename, run);
  }
}

/** A record, with its WARC head when that is plain. */
interface HeadedMember {
  readonly member: FileMember;
  readonly head: PlainHead | null;
}

async function* single(body: Buffer): AsyncGenerator<Uint8Array> {
  yield body;
}

/** A record's WARC-Target-URI as the indexer reads it (null: none). */
async function targetUri(body: Buffer): Promise<string | null> {
  const record = await new WARCParser(single(body)).parse();
  return record?.warcTargetURI ?? null;
}

/** Whether a record is one this reading knows: a response, warcinfo, or a GET request. */
function known({ member, head }: HeadedMember): boolean {
  const type = head?.get('warc-type');
  if (type === 'request') return member.body.subarray(head!.end, head!.end + GET.length).equals(GET);
  return type === 'response' || type === 'warcinfo';
}

/** The lines of a run of records naming one URI: read from their heads when they are all known, else by the indexer. */
async function* runLines(filename: string, run: readonly HeadedMember[]): AsyncGenerator<string> {
  if (!run.every(known)) {
    yield* indexedLines(
      filename,
      run.map((r) => r.member),
    );
    return;
  }
  for (const { member, head } of run) {
    if (head!.get('warc-type') !== 'response') continue;
    const plain = responseLine(member, filename, head!);
    // a response's lone line is its line beside a GET request: the indexer pairs them for the method
    if (plain !== null) yield plain;
    else yield* indexedLines(filename, [member]);
  }
}

const GET = Buffer.from('GET ');
const CRLF = '\r\n';
const HEAD_END = Buffer.from('\r\n\r\n');
/** A header line warcio's parser and the WHATWG Headers it fills take as they are: a token, a colon, a value. */
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):(.*)$/;
const PRINTABLE = /^[\x20-\x7e]*$/;

/** A plain head's header values by lower-case name, as Headers.get gives them, and where its block starts. */
interface PlainHead {
  readonly statusline: string;
  readonly end: number;
  get(name: string): string | undefined;
}

/**
 * The head (status line, header lines, blank line) at `start`, when every line is printable ASCII and
 * every header line a token name, a colon and a value, so that warcio's parser reads it just so
 * (values trimmed, empty ones dropped, repeated names joined with ", " by Headers); null otherwise.
 */
function plainHead(body: Buffer, start: number): PlainHead | null {
  const end = body.indexOf(HEAD_END, start);
  if (end < 0) return null;
  const [first, ...lines] = body.toString('latin1', start, end).split(CRLF);
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

const indexer = new CDXIndexer({ format: 'cdxj' });
const line = (entry: Record<string, unknown>) => indexer.serializeCDXJ(entry).trimEnd();

/** The CDXJ line of a response record with plain heads, as CDXIndexer.getField makes each field; null otherwise. */
function responseLine(member: FileMember, filename: string, warc: PlainHead): string | null {
  const url = warc.get('warc-target-uri');
  const blockLength = Number(warc.get('content-length') ?? 0);
  const http = plainHead(member.body, warc.end);
  if (url === undefined || http === null || http.end > warc.end + blockLength) return null;
  const parts = http.statusline.split(' ');
  const contentType = http.get('content-type');
  const digest = warc.get('warc-payload-digest');
  const entry: Record<string, unknown> = {
    urlkey: getSurt(url),
    timestamp: (warc.get('warc-date') ?? '').replace(/[-:T]/g, '').slice(0, 14),
    url,
  };
  if (contentType !== undefined) entry.mime = contentType.split(';', 1)[0]?.trim();
  entry.status = parts.length > 1 ? Number(parts[1]) : '';
  if (digest !== undefined) entry.digest = digest.split(':', 2)[1];
  Object.assign(entry, { length: member.length, offset: member.offset, filename });
  return line(entry);
}

/** The lines the indexer writes for `members`, read in order, each pointing at its response's gzip member. */
async function* indexedLines(filename: string, members: readonly FileMember[]): AsyncGenerator<string> {
  // the members handed to the indexer and not yet passed by its lines, in file order
  const pending: Array<{
    readonly inflatedOffset: number;
    readonly inflatedLength: number;
    readonly offset: number;
    readonly length: number;
  }> = [];
  let inflatedOffset = 0;
  async function* inflated(): AsyncGenerator<Uint8Array> {
    for (const { offset, length, body } of members) {
      pending.push({ inflatedOffset, inflatedLength: body.length, offset, length });
      inflatedOffset += body.length;
      yield body;
    }
  }
  for await (const entry of new CDXIndexer({ format: 'cdxj' }).iterIndex([
    { filename, reader: inflated() },
  ])) {
    // the indexer names records in file order (a response may wait for the request after it); in
    // an inflated stream the length it gives leaves out the record's closing CRLFs
    while (pending.length > 0 && pending[0].inflatedOffset < Number(entry.offset)) pending.shift();
    const member = pending[0];
    if (member?.inflatedOffset !== Number(entry.offset) || Number(entry.length) > member.inflatedLength) {
      throw new Error(
        `${filename}: the record at ${entry.offset} of its inflated stream is not one gzip member`,
      );
    }
    entry.offset = member.offset;
    entry.length = member.length;
    yield line(entry);
  }
}
