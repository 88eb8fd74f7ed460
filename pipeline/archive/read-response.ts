import { join } from 'node:path';
import { WARCParser } from 'warcio';
import { ObservatoryError, openRegularFile, type WarcPointer } from '../core/index.ts';
import { inflateBounded } from './gzip-members.ts';
import { digestProblem, recordDigestProblem } from './record-digests.ts';
import type { RecordLimits } from './record-limits.ts';
import { IDENTICAL_PAYLOAD_DIGEST, referentOf, SERVER_NOT_MODIFIED } from './revisit.ts';

/** A response record read back: what the crawler received, before any decoding. */
export interface ArchivedResponse {
  /** WARC-Target-URI: the URL the request went to. */
  readonly url: string;
  readonly status: number;
  /** The HTTP headers as received (lookup ignores case; repeated headers joined with `, `). */
  readonly headers: Headers;
  /**
   * The body as received: still content-encoded. A revisit's is the payload of the record it refers
   * to (identical-payload-digest), or none (server-not-modified: a 304 has no body).
   */
  readonly payload: Buffer;
  /** WARC-Truncated, when the body is not whole. */
  readonly truncated: string | null;
}

export interface ReadResponseOptions {
  /** Also check the record against its WARC-Block-Digest and WARC-Payload-Digest (recordDigestProblem). */
  readonly digests?: boolean;
  /** Where the records that revisits refer to may lie (RevisitReferents); without it a revisit of a payload is `corrupt`. */
  readonly referents?: RevisitReferents;
}

/**
 * The snapshot folder that holds a WARC file a revisit refers to, or null when the revisit's own
 * folder may not refer to that file (it depends on no snapshot that lists it).
 */
export type RevisitReferents = (filename: string) => string | null;

function corrupt(where: string, problem: string): ObservatoryError {
  return new ObservatoryError('corrupt', `${where}: ${problem}`);
}

/** A WARC file name a pointer may give: a plain `.warc.gz` name that stays in the archive's folder. */
function isWarcName(name: unknown): name is string {
  return typeof name === 'string' && name.endsWith('.warc.gz') && !/[/\\\0]/.test(name);
}

/**
 * The bytes `pointer` names: a WARC file of `dir` (a regular file), an offset and a length that are
 * whole numbers within the file, the length within `limits.compressed`. Anything else is `corrupt`,
 * found before a byte is allocated or read.
 */
async function pointedBytes(dir: string, pointer: WarcPointer, limits: RecordLimits, where: string) {
  const { filename, offset, length } = pointer;
  if (!isWarcName(filename)) throw corrupt(where, 'the pointer names no WARC file of the folder');
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw corrupt(where, `offset ${offset} is not a byte of a file`);
  if (!Number.isSafeInteger(length) || length <= 0 || length > limits.compressed) {
    throw corrupt(where, `length ${length} is not the length of a record (1 to ${limits.compressed} bytes)`);
  }
  const handle = await openRegularFile(join(dir, filename)).catch((error: unknown) => {
    throw error instanceof ObservatoryError ? error : corrupt(where, (error as Error).message);
  });
  try {
    const { size } = await handle.stat();
    if (offset + length > size)
      throw corrupt(where, `the record would end past the end of the file (${size} bytes)`);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, offset);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The response record at `pointer` in the WARC files of `dir`: the pointer checked (pointedBytes),
 * its bytes one whole gzip member inflated within `limits.inflated` (stopped there, never inflated
 * whole), and read with warcio. A pointer that names no such member, or one that is no response
 * record, is `corrupt`; so, with `digests`, is a record that does not match its own digests. A
 * revisit reads as the response it stands for (parseResponseRecord).
 */
export async function readArchivedResponse(
  dir: string,
  pointer: WarcPointer,
  limits: RecordLimits,
  options: ReadResponseOptions = {},
): Promise<ArchivedResponse> {
  const where = `${join(dir, String(pointer.filename))} at ${pointer.offset} (+${pointer.length})`;
  const bytes = await pointedBytes(dir, pointer, limits, where);
  const member = inflateBounded(bytes, limits.inflated);
  if (member === 'too_large')
    throw corrupt(where, `the record inflates to more than ${limits.inflated} bytes`);
  if (member === 'not_whole' || member.length !== bytes.length) {
    throw corrupt(where, 'not one whole gzip member');
  }
  if (options.digests) {
    const problem = recordDigestProblem(member.body);
    if (problem !== null) throw corrupt(where, `the record is damaged: ${problem}`);
  }
  return parseResponseRecord(member.body, where, { limits, referents: options.referents });
}

/** What resolving a revisit needs: the limits its referent is read within, and where referents may lie. */
export interface RevisitResolution {
  readonly limits: RecordLimits;
  readonly referents?: RevisitReferents;
}

/**
 * An inflated WARC record read as a response record (warcio); anything else is `corrupt`, named by
 * `where`. A `revisit` reads as the response it stands for, with its own status and headers: a 304
 * (server-not-modified) without a body; an identical payload (identical-payload-digest) with the
 * payload of the record it refers to, read from where it says it lies (in a folder `referents`
 * gives), which must be a whole response record of the same URI matching its own digests and the
 * revisit's payload digest (a revisit never refers to another revisit).
 */
export async function parseResponseRecord(
  record: Buffer,
  where: string,
  resolution?: RevisitResolution,
): Promise<ArchivedResponse> {
  const parsed = await WARCParser.parse([record]).catch(() => null);
  const type = parsed?.warcType;
  if ((type !== 'response' && type !== 'revisit') || !parsed?.httpHeaders) {
    throw new ObservatoryError('corrupt', `${where} is not a WARC response record`);
  }
  const url = parsed.warcTargetURI ?? '';
  const response = {
    url,
    status: Number(parsed.httpHeaders.statusCode),
    headers: parsed.httpHeaders.headers as Headers,
    truncated: parsed.warcHeader('WARC-Truncated') ?? null,
  };
  if (type === 'response') return { ...response, payload: Buffer.from(await parsed.readFully(false)) };
  const profile = parsed.warcHeader('WARC-Profile');
  if (profile === SERVER_NOT_MODIFIED) return { ...response, payload: Buffer.alloc(0) };
  if (profile !== IDENTICAL_PAYLOAD_DIGEST) {
    throw corrupt(where, `a revisit of profile ${profile ?? '(none)'}, which this software does not read`);
  }
  const referent = referentOf({ get: (name) => parsed.warcHeader(name) ?? undefined });
  if (referent === null)
    throw corrupt(where, 'a revisit that does not say where the record it refers to lies');
  const folder = resolution?.referents?.(referent.pointer.filename) ?? null;
  if (resolution === undefined || folder === null) {
    throw corrupt(
      where,
      `a revisit of a record in ${referent.pointer.filename}, which is in no snapshot its folder depends on`,
    );
  }
  const original = await readArchivedResponse(folder, referent.pointer, resolution.limits, { digests: true });
  if (original.url !== url || referent.uri !== url || original.truncated !== null) {
    throw corrupt(
      where,
      `it refers to a record of ${original.url}${original.truncated ? ' not whole' : ''}, not of ${url}`,
    );
  }
  const problem = digestProblem('WARC-Payload-Digest', referent.payloadDigest, original.payload);
  if (problem !== null) throw corrupt(where, `the payload of the record it refers to: ${problem}`);
  return { ...response, payload: original.payload };
}
