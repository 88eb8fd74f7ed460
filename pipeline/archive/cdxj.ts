import { closeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { CDXIndexer, WARCParser } from 'warcio';
import { ObservatoryError, openRegularFileSync } from '../core/index.ts';
import {
  cdxjLine,
  indexedType,
  knownRecord,
  type MemberPlace,
  type PlainHead,
  placedLine,
  plainHead,
  responseFields,
} from './cdxj-fields.ts';
import { notedMembers } from './cdxj-notes.ts';
import { type FileMember, gzipMembers, inflateMember, type MembersEnd } from './gzip-members.ts';
import type { RecordLimits } from './record-limits.ts';

/**
 * The lines of the CDXJ index of WARC files, as pywb and ReplayWeb.page read it: one line per
 * response record, `SURT timestamp {"url", "mime", "status", "digest", "length", "offset",
 * "filename"}`, in the files' order. The index is these lines sorted in byte order (as `LC_ALL=C
 * sort` gives), which the publisher does on disk so that a large crawl's index is never held in
 * memory.
 *
 * The lines are exactly those Webrecorder's indexer (warcio's CDXIndexer) writes, so the keys are
 * canonicalised as their replay tools expect (its own SURT function makes them). A file the crawl
 * noted as it wrote it (cdxj-notes.ts) gives its lines from its notes. Any other file is read: its
 * records inflated natively (every record is a gzip member of its own, docs/archive.md), a record
 * whose heads are plain read from its heads alone (cdxj-fields.ts: warcio's parser reads every
 * payload through JavaScript streams, half of the index's CPU besides inflating), any other
 * response handed to the indexer alone, and a run of records naming one URI with a record the
 * fields do not know (another type, a request other than GET, which the indexer pairs with its
 * response) handed to it as that run.
 *
 * A published folder's files are read with `notes: false` (notes there are nothing the folder
 * lists) and `limits`: every file must then be whole gzip members from its first byte to its last,
 * none inflating past the limits (`corrupt` otherwise), where a crawl's own files end at their first
 * member that is not whole.
 */
export async function* cdxjEntries(
  dir: string,
  files: readonly string[],
  options: { readonly notes?: boolean; readonly limits?: RecordLimits } = {},
): AsyncGenerator<string> {
  for (const filename of files) {
    const noted = (options.notes ?? true) ? await notedMembers(dir, filename) : null;
    if (noted === null) {
      yield* readLines(dir, filename, options.limits);
      continue;
    }
    for await (const member of noted) {
      if ('line' in member) yield member.line;
      else yield* indexedLines(filename, [readMember(dir, member.indexer)]);
    }
  }
}

/** The gzip member at a place of a file, inflated. */
function readMember(dir: string, place: MemberPlace): FileMember {
  const fd = openRegularFileSync(join(dir, place.filename));
  try {
    const bytes = Buffer.alloc(place.length);
    readSync(fd, bytes, 0, place.length, place.offset);
    const member = inflateMember(bytes);
    if (member?.length !== place.length) {
      throw new Error(`${place.filename}: no whole gzip member of ${place.length} bytes at ${place.offset}`);
    }
    return { offset: place.offset, ...member };
  } finally {
    closeSync(fd);
  }
}

/** A file's lines, read from its records (within `limits`, when given, to its last byte). */
async function* readLines(dir: string, filename: string, limits?: RecordLimits): AsyncGenerator<string> {
  // the indexer pairs a record only with the records next to it that name the same URI: each
  // run of such records is indexed as the indexer indexes it within the whole file
  let run: HeadedMember[] = [];
  let runUri: string | null = null;
  const members = gzipMembers(join(dir, filename), limits?.compressed, limits?.inflated);
  try {
    for (let next = members.next(); ; next = members.next()) {
      if (next.done) {
        if (limits !== undefined && next.value !== null)
          throw notWhole(join(dir, filename), next.value, limits);
        break;
      }
      const member = next.value;
      const head = plainHead(member.body, 0);
      const uri = head === null ? await targetUri(member.body) : (head.get('warc-target-uri') ?? null);
      if (run.length > 0 && uri !== runUri) {
        yield* runLines(filename, run);
        run = [];
      }
      run.push({ member, head });
      runUri = uri;
    }
  } finally {
    // closes the file when the reading stops early
    members.return(null);
  }
  if (run.length > 0) yield* runLines(filename, run);
}

/** The error of a published WARC file that is not whole gzip members within the limits, from `end` on. */
export function notWhole(path: string, end: MembersEnd, limits: RecordLimits): ObservatoryError {
  return new ObservatoryError(
    'corrupt',
    end.failure === 'too_large'
      ? `${path}: the record at ${end.offset} inflates to more than ${limits.inflated} bytes`
      : `${path}: from byte ${end.offset} on, not a whole gzip member of at most ${limits.compressed} bytes`,
  );
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

/** The lines of a run of records naming one URI: read from their heads when they are all known, else by the indexer. */
async function* runLines(filename: string, run: readonly HeadedMember[]): AsyncGenerator<string> {
  if (!run.every(({ member, head }) => head !== null && knownRecord(member.body, head))) {
    yield* indexedLines(
      filename,
      run.map((r) => r.member),
    );
    return;
  }
  for (const { member, head } of run) {
    if (!indexedType(head!)) continue;
    const fields = responseFields(member.body, head!);
    // a response's lone line is its line beside a GET request: the indexer pairs them for the method
    if (fields !== null) yield placedLine(fields, { filename, offset: member.offset, length: member.length });
    else yield* indexedLines(filename, [member]);
  }
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
    yield cdxjLine(entry);
  }
}
