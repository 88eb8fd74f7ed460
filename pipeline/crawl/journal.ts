import {
  closeSync,
  createReadStream,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CrawledDocument, DocumentRecord, ObjectKind, Statement } from '../core/index.ts';
import { ObservatoryError } from '../core/index.ts';
import type { RoundUrl } from './frontier.ts';

/**
 * The crawl journal: one JSON line per event, appended before the event counts. A crawl killed
 * at any moment (kill -9) leaves at worst a torn last line, which resume cuts off; everything
 * before it is replayed, so no finished fetch is lost and none is fetched twice.
 *
 * Lines: `{"t":"round",...}` when a round starts (the URLs that joined it), `{"t":"doc",...}`
 * per finished fetch (record + statements), `{"t":"end"}` when the crawl is complete.
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

type PackedStatement = [string, string, string, 'i' | 'b' | 'l', string | null, string | null];
const KIND_CODE: Record<ObjectKind, 'i' | 'b' | 'l'> = { iri: 'i', bnode: 'b', literal: 'l' };
const CODE_KIND: Record<string, ObjectKind> = { i: 'iri', b: 'bnode', l: 'literal' };

function pack(s: Statement): PackedStatement {
  return [s.subject, s.predicate, s.object, KIND_CODE[s.objectKind], s.datatype, s.lang];
}

function unpack(p: PackedStatement): Statement {
  return {
    subject: p[0],
    predicate: p[1],
    object: p[2],
    objectKind: CODE_KIND[p[3]],
    datatype: p[4],
    lang: p[5],
  };
}

function encode(line: JournalLine): string {
  if (line.t !== 'doc') return `${JSON.stringify(line)}\n`;
  return `${JSON.stringify({ ...line, statements: line.statements.map(pack) })}\n`;
}

function decode(text: string, file: string, lineNo: number): JournalLine {
  let value: { t?: string; statements?: PackedStatement[] };
  try {
    value = JSON.parse(text);
  } catch {
    throw new ObservatoryError('corrupt', `${file}:${lineNo}: not a JSON line; the journal is damaged`);
  }
  if (value.t === 'doc')
    return { ...(value as unknown as DocLine), statements: (value.statements ?? []).map(unpack) };
  if (value.t === 'round' || value.t === 'end') return value as JournalLine;
  throw new ObservatoryError(
    'corrupt',
    `${file}:${lineNo}: unknown journal line type ${JSON.stringify(value.t)}`,
  );
}

/** An open journal: the lines already there (to replay) and an appender for new ones. */
export interface Journal {
  readonly dir: string;
  readonly replay: readonly JournalLine[];
  append(line: JournalLine): void;
  close(): void;
}

/**
 * Opens (creating) the journal in `dir`. A torn last line from a killed crawl is cut off; any
 * other damage is `corrupt`, never silently skipped.
 */
export function openJournal(dir: string, options: { syncEveryMs?: number } = {}): Journal {
  const file = join(dir, JOURNAL_FILE);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (cause) {
    throw new ObservatoryError('io', `cannot create the crawl folder ${dir}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const replay: JournalLine[] = [];
  let validBytes = 0;
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    const end = text.lastIndexOf('\n') + 1;
    validBytes = Buffer.byteLength(text.slice(0, end));
    const lines = text.slice(0, end).split('\n');
    lines.pop();
    lines.forEach((l, i) => {
      replay.push(decode(l, file, i + 1));
    });
  }
  const fd = openSync(file, 'a+');
  if (statSync(file).size !== validBytes) ftruncateSync(fd, validBytes);
  const syncEveryMs = options.syncEveryMs ?? 1000;
  let dirty = false;
  const timer = setInterval(() => {
    if (dirty) fdatasyncSync(fd);
    dirty = false;
  }, syncEveryMs);
  timer.unref();
  let closed = false;
  return {
    dir,
    replay,
    append(line) {
      writeSync(fd, encode(line));
      dirty = true;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      fdatasyncSync(fd);
      closeSync(fd);
    },
  };
}

/** Streams the finished fetches of a journal in the order they finished (what the publisher reads). */
export async function* readJournalDocuments(dir: string): AsyncGenerator<CrawledDocument> {
  const file = join(dir, JOURNAL_FILE);
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let n = 0;
  for await (const text of lines) {
    n++;
    if (!text.startsWith('{"t":"doc"')) continue;
    const line = decode(text, file, n) as DocLine;
    yield { record: line.record, statements: line.statements };
  }
}
