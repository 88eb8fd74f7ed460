import { createReadStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  indexedType,
  knownRecord,
  type MemberPlace,
  placedLine,
  plainHead,
  type ResponseFields,
  responseFields,
} from './cdxj-fields.ts';

/**
 * The index notes of a WARC file: what its CDXJ index needs of each gzip member, written by the
 * crawl beside the file as it appends the member, so that publishing reads a line per member instead
 * of inflating and parsing the whole archive (a 200,000-document week's 525 MB archive: 15 s of CPU
 * that slowed the quads sort beside it by as much). One line per member, in file order:
 * `<offset> <length> <note>`, the note being the response's (or revisit's) CDXJ line, `-` for a member with no line
 * (warcinfo, a GET request) or `?` for a response the indexer must read itself (a head that is not
 * plain). A record of another kind makes the crawl remove the file's notes, and so does a resumed
 * crawl that cuts a torn record off the file: the publish then reads that file as before. Notes are
 * a cache: a file whose notes do not cover it exactly, member after member from its first byte to
 * its last, is read instead (cdxj.ts).
 */

/** The notes of a WARC file, beside it. */
export function notesFile(warcPath: string): string {
  return `${warcPath}.cdxj-notes`;
}

/** What the index needs of one record: its fields (a response), nothing, the indexer, or another kind of record. */
export type IndexNote = ResponseFields | 'none' | 'indexer' | 'unknown';

/** The note of a record, from its bytes before compression. */
export function indexNote(record: Buffer): IndexNote {
  const warc = plainHead(record, 0);
  if (warc === null || !knownRecord(record, warc)) return 'unknown';
  if (!indexedType(warc)) return 'none';
  return responseFields(record, warc) ?? 'indexer';
}

/** The notes line of a member that is not 'unknown'. */
export function noteLine(note: Exclude<IndexNote, 'unknown'>, place: MemberPlace): string {
  const text = note === 'none' ? '-' : note === 'indexer' ? '?' : placedLine(note, place);
  return `${place.offset} ${place.length} ${text}\n`;
}

/** One member of a file as its notes give it: a CDXJ line, or a place for the indexer. */
export type NotedMember = { readonly line: string } | { readonly indexer: MemberPlace };

const NOTE = /^(\d+) (\d+) (.*)$/;

async function* noteLines(path: string): AsyncGenerator<[number, number, string] | null> {
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    const m = NOTE.exec(text);
    yield m === null ? null : [Number(m[1]), Number(m[2]), m[3]];
  }
}

/** Whether the notes cover the file exactly: well-formed lines, members end to end from 0 to its size. */
async function coverExactly(path: string, size: number): Promise<boolean> {
  let next = 0;
  for await (const note of noteLines(path)) {
    if (note === null || note[0] !== next || note[1] <= 0) return false;
    next += note[1];
  }
  return next === size;
}

/**
 * The members of `filename` in `dir` as its notes give them, or null when it has no notes or they
 * do not cover it exactly. The notes are read twice (checked whole, then given), so that nothing is
 * given from notes that turn out not to fit.
 */
export async function notedMembers(
  dir: string,
  filename: string,
): Promise<AsyncGenerator<NotedMember> | null> {
  const warc = join(dir, filename);
  const notes = notesFile(warc);
  if (!existsSync(notes) || !(await coverExactly(notes, statSync(warc).size))) return null;
  return (async function* () {
    for await (const note of noteLines(notes)) {
      const [offset, length, text] = note!;
      if (text === '?') yield { indexer: { filename, offset, length } };
      else if (text !== '-') yield { line: text };
    }
  })();
}
