import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { CrawledDocument, DocumentRecord, Logger, ObjectKind, Statement } from '../core/index.ts';
import { ioError, makeDirectory, quoteInput } from '../core/index.ts';
import type { RoundUrl } from './frontier.ts';

/**
 * The crawl journal: one JSON line per event, appended before the event counts. A crawl killed
 * at any moment (kill -9) leaves at worst a torn last line, which resume cuts off; everything
 * before it is replayed, so no finished fetch is lost and none is fetched twice. Lines end at \n
 * only, and a line damaged otherwise (disk, editor) is skipped and reported, never fatal.
 *
 * Lines: `{"t":"round",...}` when a round starts (the URLs that joined it), `{"t":"doc",...}`
 * per finished fetch (record + statements), `{"t":"end"}` when the crawl is complete. A document
 * whose statements make a line longer than LINE_CHARS has its first statements in `{"t":"part",...}`
 * lines written just before its document line, which names them (see encode). A document's
 * statements are written once each (a graph is a set), and its lines say so (`"distinct":true`):
 * the publisher then does not merge them again (journals written before hold repeats).
 */
export const JOURNAL_FILE = 'journal.ndjson';

export interface RoundLine {
  readonly t: 'round';
  readonly round: number;
  readonly urls: readonly RoundUrl[];
}

export interface DocLine {
  readonly t: 'doc';
  /** BFS distance from the seeds; record.round is the round current when the fetch finished. */
  readonly depth: number;
  readonly record: DocumentRecord;
  readonly statements: readonly Statement[];
}

export interface EndLine {
  readonly t: 'end';
}

export type JournalLine = RoundLine | DocLine | EndLine;

type KindCode = 'i' | 'b' | 'l' | 't';
/**
 * A statement as a journal line holds it: an array of its fields in the order of
 * PACKED_STATEMENT_FIELDS, the last two only when the statement has them (journals written before
 * they existed have six).
 */
type PackedStatement =
  | [string, string, string, KindCode, string | null, string | null]
  | [string, string, string, KindCode, string | null, string | null, string | null]
  | [string, string, string, KindCode, string | null, string | null, string | null, string];
const KIND_CODE: Record<ObjectKind, KindCode> = { iri: 'i', bnode: 'b', literal: 'l', triple: 't' };
/** The object kind each code of a packed statement stands for. */
export const CODE_KIND: Readonly<Record<KindCode, ObjectKind>> = {
  i: 'iri',
  b: 'bnode',
  l: 'literal',
  t: 'triple',
};
/**
 * The fields of a packed statement, in order, by the quads column each is published in: the one
 * list that the journal's writer and reader and the publisher's staging (which reads the journal
 * with DuckDB) follow. `object_kind` is a code of CODE_KIND.
 */
export const PACKED_STATEMENT_FIELDS = [
  'subject',
  'predicate',
  'object',
  'object_kind',
  'datatype',
  'lang',
  'direction',
  'source_graph',
] as const;

function pack(s: Statement): PackedStatement {
  const kind = KIND_CODE[s.objectKind];
  if (s.sourceGraph !== undefined)
    return [s.subject, s.predicate, s.object, kind, s.datatype, s.lang, s.direction ?? null, s.sourceGraph];
  if (s.direction !== undefined)
    return [s.subject, s.predicate, s.object, kind, s.datatype, s.lang, s.direction];
  return [s.subject, s.predicate, s.object, kind, s.datatype, s.lang];
}

function unpack(p: PackedStatement): Statement {
  const s: Statement = {
    subject: p[0],
    predicate: p[1],
    object: p[2],
    objectKind: CODE_KIND[p[3]],
    datatype: p[4],
    lang: p[5],
  };
  if (p.length === 6) return s;
  const given = p[6];
  const directional: Statement = given === 'ltr' || given === 'rtl' ? { ...s, direction: given } : s;
  return p.length === 8 && typeof p[7] === 'string' ? { ...directional, sourceGraph: p[7] } : directional;
}

// JSON.stringify leaves U+2028/U+2029 raw inside strings; escaped, a journal line holds no line
// terminator of any kind, so every line splitter (readline, editors, grep) sees the same lines
const LINE_SEPARATORS = /[\u2028\u2029]/g;
const escapeSeparator = (c: string) => (c === '\u2028' ? '\\u2028' : '\\u2029');

type Replacer = (key: string, value: unknown) => unknown;

/**
 * Characters after which a document's statements go on in another line. A reader of the journal
 * holds a whole line at once (DuckDB's JSON reader buffers a few times the longest line, outside its
 * memory limit), so lines are bounded rather than as long as the largest document (tens of MB).
 */
const LINE_CHARS = 1 << 20;

/** The statements of a split document that precede its document line, which names them by `at`. */
interface PartLine {
  readonly t: 'part';
  /** Byte offset of the document's first part line in its journal: unique to this write. */
  readonly at: number;
  readonly statements: readonly Statement[];
}

/** What a document line adds when its document was split: where its parts start and how many. */
interface Parts {
  readonly at: number;
  readonly count: number;
}

/**
 * The text of a journal line written at byte offset `start`, in lines of at most about LINE_CHARS
 * characters (and one statement), each ending in a newline. A document longer than that is written
 * as part lines `{"t":"part","at":start,"graph":finalUrl,"statements":[...]}` and then its document
 * line, with the last statements and `"parts":{"at":start,"count":n}` before them: the document line
 * comes last, so a crawl killed in between leaves parts that no document line names, which readers
 * ignore. A document within the bound is one line, JSON.stringify of it (statements packed and last).
 * A statement repeated in the document is written once: here, where the packed text is made anyway,
 * a Set of those texts costs a fraction of what DuckDB's list_distinct did per statement at publish.
 */
function* encode(line: JournalLine, start: number, replacer?: Replacer): Generator<string> {
  const escaped = (text: string) => text.replace(LINE_SEPARATORS, escapeSeparator);
  if (line.t !== 'doc') {
    yield `${escaped(JSON.stringify(line, replacer))}\n`;
    return;
  }
  const { statements, ...rest } = line;
  const packed = [...new Set(statements.map((s) => JSON.stringify(pack(s), replacer)))];
  const partHead = `${JSON.stringify({ t: 'part', at: start, graph: rest.record.finalUrl, distinct: true }, replacer).slice(0, -1)},"statements":[`;
  let count = 0;
  let body = '';
  for (let i = 0; i < packed.length; i++) {
    body += `${body === '' ? '' : ','}${packed[i]}`;
    if (body.length >= LINE_CHARS && i < packed.length - 1) {
      yield escaped(`${partHead}${body}]}\n`);
      count++;
      body = '';
    }
  }
  const parts: Parts = { at: start, count };
  const fields = count > 0 ? { ...rest, distinct: true, parts } : { ...rest, distinct: true };
  const head = JSON.stringify(fields, replacer).slice(0, -1);
  yield escaped(`${head},"statements":[${body}]}\n`);
}

/**
 * Lone surrogates (possible in JS strings, impossible in UTF-8) as U+FFFD, in values and keys: what
 * DuckDB stored for them when the publisher appended values itself, and DuckDB's JSON reader
 * refuses the \udXXX escapes JSON.stringify would write for them.
 */
function wellFormed(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (!isObject(value) || Array.isArray(value)) return value;
  return Object.keys(value).every((k) => k.isWellFormed())
    ? value
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), v]));
}

/** A journal line that could not be read, and what it held as far as its text still tells. */
export interface JournalDamage {
  /** 1-based line number in the journal. */
  readonly line: number;
  readonly kind: 'doc' | 'round' | 'unknown';
  /** The document's URL, when the line was a document and its URL is still legible. */
  readonly url: string | null;
  /** The round number, when the line started a round and the number is still legible. */
  readonly round: number | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A document line as read: its statements are the last of the document when it names parts. */
type DocHead = DocLine & { readonly parts?: Parts };

/** The line as read, or null when it is damaged (not JSON, or not the shape we write). */
function decode(text: string): RoundLine | DocHead | EndLine | PartLine | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  if (value.t === 'doc') {
    const { record, statements, depth } = value;
    if (!isObject(record) || typeof record.url !== 'string' || typeof depth !== 'number') return null;
    if (!Array.isArray(statements) || !statements.every(Array.isArray)) return null;
    const { parts } = value;
    if (
      parts !== undefined &&
      !(isObject(parts) && typeof parts.at === 'number' && typeof parts.count === 'number')
    )
      return null;
    const { distinct: _, ...line } = value;
    return { ...(line as unknown as DocHead), statements: (statements as PackedStatement[]).map(unpack) };
  }
  if (value.t === 'part')
    return typeof value.at === 'number' &&
      Array.isArray(value.statements) &&
      value.statements.every(Array.isArray)
      ? { t: 'part', at: value.at, statements: (value.statements as PackedStatement[]).map(unpack) }
      : null;
  if (value.t === 'round')
    return typeof value.round === 'number' && Array.isArray(value.urls)
      ? (value as unknown as RoundLine)
      : null;
  return value.t === 'end' ? (value as unknown as EndLine) : null;
}

/** What a damaged line's text still says: its kind and its document URL or round number. */
function damageOf(text: string, line: number): JournalDamage {
  const record = text.indexOf('"record":{');
  const kind =
    text.startsWith('{"t":"doc"') || record >= 0
      ? 'doc'
      : text.startsWith('{"t":"round"')
        ? 'round'
        : 'unknown';
  // the record's url is the first "url" after the record starts (its headers and statements follow it)
  const urlField = /"url":("(?:[^"\\]|\\.)*")/g;
  urlField.lastIndex = record;
  const quoted = record >= 0 ? urlField.exec(text)?.[1] : undefined;
  let url: string | null = null;
  try {
    url = quoted === undefined ? null : (JSON.parse(quoted) as string);
  } catch {
    // the URL itself is damaged
  }
  const round = kind === 'round' ? /^\{"t":"round","round":(\d+)/.exec(text)?.[1] : undefined;
  return { line, kind, url, round: round === undefined ? null : Number(round) };
}

function describeDamage(d: JournalDamage): string {
  if (d.kind === 'doc')
    return `line ${d.line}: document ${d.url === null ? '(URL illegible)' : quoteInput(d.url)}`;
  if (d.kind === 'round') return `line ${d.line}: the URL list of round ${d.round ?? '(number illegible)'}`;
  return `line ${d.line}: illegible`;
}

/**
 * Says what damaged lines cost, in the structured log and on stderr (cron mails it): a damaged line
 * is skipped, never a reason to stop, or one bad line would block every later run.
 */
function reportDamage(
  file: string,
  damage: readonly JournalDamage[],
  consequence: string,
  logger?: Logger,
): void {
  const shown = damage.slice(0, 5).map(describeDamage);
  if (damage.length > shown.length) shown.push(`${damage.length - shown.length} more`);
  logger?.warn(
    { journal: file, damaged: damage.length, lines: damage.slice(0, 100) },
    `damaged journal lines skipped; ${consequence}`,
  );
  process.stderr.write(
    `observatory: ${file}: ${damage.length} damaged line(s) skipped (${shown.join('; ')}); ${consequence}\n`,
  );
}

/**
 * Joins split documents read line by line: keeps the part lines of the latest write (`at`) and
 * gives their statements to the document line that follows them. Parts of another write (a crawl
 * killed while writing them) are dropped.
 */
function documentAssembler() {
  let at = -1;
  let pending: (readonly Statement[])[] = [];
  return {
    part(line: PartLine): void {
      if (line.at !== at) pending = [];
      at = line.at;
      pending.push(line.statements);
    },
    /** The whole document, or null when a part it names is missing or damaged. */
    doc(head: DocHead): DocLine | null {
      const { parts, ...line } = head;
      const [found, foundAt] = [pending, at];
      pending = [];
      at = -1;
      if (parts === undefined) return line;
      if (parts.at !== foundAt || parts.count !== found.length) return null;
      return { ...line, statements: [...found.flat(), ...line.statements] };
    },
  };
}

/** An open journal: the lines already there (to replay) and an appender for new ones. */
export interface Journal {
  readonly dir: string;
  /**
   * The lines already there, read from the file as they are iterated (a large crawl's journal holds
   * gigabytes of statements: it is never held whole). Damaged lines are skipped, and reported on
   * stderr and in the log once the iteration ends.
   */
  replay(): Generator<JournalLine>;
  /** Lines the last complete replay could not read and skipped. */
  readonly damaged: readonly JournalDamage[];
  /**
   * Appends a line. The first failure to write or sync the file (a full disk) is an `io` error
   * naming the journal and the system's code (ENOSPC), thrown here and by every later call.
   */
  append(line: JournalLine): void;
  /** Syncs and closes the file; throws the journal's first failure, if any. */
  close(): void;
}

const CHUNK_BYTES = 1 << 20;
const NEWLINE_BYTE = 0x0a;

/** Bytes of the file up to and including its last \n: what a torn last line is cut back to. */
function completeLinesBytes(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    for (let end = fstatSync(fd).size; end > 0; ) {
      const start = Math.max(0, end - CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, end - start, start);
      const at = chunk.subarray(0, read).lastIndexOf(NEWLINE_BYTE);
      if (at >= 0) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of the first `bytes` bytes of a file, read in chunks, split at \n only (lines may hold
 * raw U+2028/U+2029, which journals written before they were escaped contain). A \n byte is never
 * part of a multi-byte UTF-8 character, so splitting bytes before decoding is exact.
 */
function* fileLinesSync(file: string, bytes: number): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    const pending: Buffer[] = [];
    for (let position = 0; position < bytes; ) {
      const read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, bytes - position), position);
      if (read === 0) break;
      position += read;
      let start = 0;
      for (
        let nl = chunk.indexOf(NEWLINE_BYTE, 0);
        nl !== -1 && nl < read;
        nl = chunk.indexOf(NEWLINE_BYTE, start)
      ) {
        pending.push(chunk.subarray(start, nl));
        yield Buffer.concat(pending).toString('utf8');
        pending.length = 0;
        start = nl + 1;
      }
      // copied: the chunk buffer is read into again
      if (start < read) pending.push(Buffer.from(chunk.subarray(start, read)));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes all of `text` at the end of `fd`: a write the disk cut short (it filled up) goes on with
 * the rest, which then fails with the disk's error, never leaving a line torn and going on after it.
 * Returns the bytes written.
 */
function writeAll(fd: number, text: string): number {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
  return bytes.length;
}

/**
 * Opens (creating) the journal in `dir`. A torn last line from a killed crawl is cut off; a damaged
 * line elsewhere is skipped and reported with what it held: a document it recorded is fetched again
 * when the crawl goes on (its URL is still queued in its round), or is missing from a crawl that
 * had ended. The damaged lines stay in the file for inspection.
 */
export function openJournal(dir: string, options: { syncEveryMs?: number; logger?: Logger } = {}): Journal {
  const file = join(dir, JOURNAL_FILE);
  makeDirectory(dir, 'the crawl folder');
  const validBytes = existsSync(file) ? completeLinesBytes(file) : 0;
  let damaged: JournalDamage[] = [];
  function* replay(): Generator<JournalLine> {
    const found: JournalDamage[] = [];
    const documents = documentAssembler();
    let ended = false;
    let n = 0;
    for (const text of fileLinesSync(file, validBytes)) {
      n++;
      const read = decode(text);
      if (read?.t === 'part') {
        documents.part(read);
        continue;
      }
      const line = read?.t === 'doc' ? documents.doc(read) : read;
      // a damaged part line is reported as its document's, by the document line
      if (line === null && !text.startsWith(PART_PREFIX)) found.push(damageOf(text, n));
      if (line === null) continue;
      if (line.t === 'end') ended = true;
      yield line;
    }
    damaged = found;
    if (found.length === 0) return;
    reportDamage(
      file,
      found,
      ended
        ? 'the crawl had ended: documents of damaged lines are missing from its snapshot'
        : 'the crawl goes on and fetches the documents of damaged lines again',
      options.logger,
    );
  }
  let fd: number;
  try {
    fd = openSync(file, 'a+');
    if (statSync(file).size !== validBytes) ftruncateSync(fd, validBytes);
  } catch (error) {
    throw ioError('open the crawl journal', file, error);
  }
  // where the next line starts: split documents name their first line by it
  let position = validBytes;
  const syncEveryMs = options.syncEveryMs ?? 1000;
  let dirty = false;
  // the first failure to write or sync (a full disk): every later append and the close throw it,
  // and a sync in the timer, which nobody awaits, is thrown by the next append
  let failure: unknown = null;
  const failed = (doing: string, error: unknown) => {
    failure ??= ioError(doing, file, error);
    return failure;
  };
  const timer = setInterval(() => {
    if (!dirty || failure !== null) return;
    dirty = false;
    try {
      fdatasyncSync(fd);
    } catch (error) {
      failed('sync the crawl journal', error);
    }
  }, syncEveryMs);
  timer.unref();
  let closed = false;
  return {
    dir,
    replay,
    get damaged() {
      return damaged;
    },
    append(line) {
      if (failure !== null) throw failure;
      try {
        for (const piece of encode(line, position)) position += writeAll(fd, piece);
      } catch (error) {
        throw failed('write to the crawl journal', error);
      }
      dirty = true;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      try {
        if (failure === null) fdatasyncSync(fd);
      } catch (error) {
        failed('sync the crawl journal', error);
      }
      try {
        closeSync(fd);
      } catch (error) {
        failed('close the crawl journal', error);
      }
      if (failure !== null) throw failure;
    },
  };
}

/** Documents read from a crawl journal file, which the publisher reads in place rather than through JS. */
export interface JournalDocuments extends AsyncIterable<CrawledDocument> {
  readonly journal: { readonly file: string; readonly logger?: Logger };
}

/**
 * Streams the finished fetches of a journal in the order they finished (what the publisher reads).
 * Damaged lines are skipped; at the end, the documents they held that no later line fetched again
 * are reported as missing. The result also names the journal file, so that publishing reads it in
 * place (see pipeline/snapshot/journal-input.ts).
 */
export function readJournalDocuments(dir: string, options: { logger?: Logger } = {}): JournalDocuments {
  const file = join(dir, JOURNAL_FILE);
  return {
    journal: { file, logger: options.logger },
    [Symbol.asyncIterator]: () => readJournalFile(file, options),
  };
}

/** readJournalDocuments over a journal file of any name. */
export async function* readJournalFile(
  file: string,
  options: { logger?: Logger } = {},
): AsyncGenerator<CrawledDocument> {
  const damaged: JournalDamage[] = [];
  const lostUrls = new Set<string>();
  const documents = documentAssembler();
  let n = 0;
  // a torn last line (a crawl killed mid-write) is left out, as the crawler cuts it on resume
  for (const text of fileLinesSync(file, completeLinesBytes(file))) {
    n++;
    // round lines are many and large; only document lines matter here
    if (text.startsWith(ROUND_PREFIX) || text === END_LINE) continue;
    const read = decode(text);
    if (read?.t === 'part') {
      documents.part(read);
      continue;
    }
    const line = read?.t === 'doc' ? documents.doc(read) : read;
    if (line?.t === 'doc') {
      lostUrls.delete(line.record.url);
      yield { record: line.record, statements: line.statements };
    } else if (!line && !text.startsWith(PART_PREFIX)) {
      const damage = damageOf(text, n);
      damaged.push(damage);
      if (damage.url !== null) lostUrls.add(damage.url);
    }
  }
  if (damaged.length === 0) return;
  const lost = damaged.filter((d) => d.kind !== 'round' && (d.url === null || lostUrls.has(d.url)));
  reportDamage(
    file,
    damaged,
    lost.length === 0
      ? 'every document they held was fetched again later in the crawl'
      : `${lost.length} document(s) are missing from what is published: ${lost
          .slice(0, 5)
          .map((d) => (d.url === null ? `line ${d.line} (URL illegible)` : quoteInput(d.url)))
          .join(', ')}${lost.length > 5 ? ', ...' : ''}`,
    options.logger,
  );
}

const DOC_PREFIX = '{"t":"doc"';
const PART_PREFIX = '{"t":"part"';
const ROUND_PREFIX = '{"t":"round"';
const END_LINE = '{"t":"end"}';

/**
 * Writes documents as the document lines of a journal (depth 0: the publisher does not read it),
 * with lone surrogates as U+FFFD (see wellFormed). Returns when the file is written and closed.
 */
export async function writeJournalDocuments(
  file: string,
  documents: AsyncIterable<CrawledDocument>,
): Promise<void> {
  let position = 0;
  async function* lines(): AsyncGenerator<string> {
    for await (const doc of documents) {
      for (const piece of encode({ t: 'doc', depth: 0, ...doc }, position, wellFormed)) {
        position += Buffer.byteLength(piece);
        yield piece;
      }
    }
  }
  await pipeline(lines(), createWriteStream(file));
}

/** What one pass over a journal's bytes found, parsing nothing. */
export interface JournalScan {
  /** Lines that start like a document line. */
  readonly docLines: number;
  /** Lines that start like a part line (the first statements of a split document). */
  readonly partLines: number;
  /**
   * Every line starts like a line this module writes and the file ends with a complete line: the
   * lines a JSON reader finds are the journal's lines, and counting document rows tells whether
   * any was damaged.
   */
  readonly regular: boolean;
  /** Bytes of the longest line, without its \n. */
  readonly longestLine: number;
  /**
   * Sum modulo 2^256 of the SHA-256 of the bytes of every document and part line: independent of
   * line order.
   */
  readonly lineHashSum: bigint;
}

const HASH_MODULUS = 1n << 256n;
const NEWLINE = 0x0a;

/** Reads a journal file once, as bytes: counts and hashes its document and part lines and checks its shape. */
export async function scanJournal(file: string): Promise<JournalScan> {
  const known = [DOC_PREFIX, PART_PREFIX, ROUND_PREFIX, END_LINE].map((p) => Buffer.from(p));
  let docLines = 0;
  let partLines = 0;
  let regular = true;
  let longestLine = 0;
  let lineHashSum = 0n;
  // the line in progress: its length, its first bytes (to classify it at its end) and its hash
  let length = 0;
  let head = Buffer.alloc(0);
  let hash = createHash('sha256');
  const startsWith = (prefix: Buffer) => head.subarray(0, prefix.length).equals(prefix);
  const endLine = () => {
    const doc = startsWith(known[0]);
    if (doc || startsWith(known[1])) {
      if (doc) docLines++;
      else partLines++;
      lineHashSum = (lineHashSum + BigInt(`0x${hash.digest('hex')}`)) % HASH_MODULUS;
    } else if (!known.some(startsWith)) {
      regular = false;
    }
    longestLine = Math.max(longestLine, length);
    length = 0;
    head = Buffer.alloc(0);
    hash = createHash('sha256');
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 }) as AsyncIterable<Buffer>) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (head.length < 16) head = Buffer.concat([head, piece.subarray(0, 16 - head.length)]);
      hash.update(piece);
      length += piece.length;
      if (nl === -1) break;
      endLine();
      start = nl + 1;
    }
  }
  if (length > 0) regular = false;
  return { docLines, partLines, regular, longestLine, lineHashSum };
}
