import { join } from 'node:path';
import { WARCParser } from 'warcio';
import { ObservatoryError, openRegularFile, type WarcPointer } from '../core/index.ts';
import { inflateBounded } from './gzip-members.ts';
import { recordDigestProblem } from './record-digests.ts';
import type { RecordLimits } from './record-limits.ts';

/** A response record read back: what the crawler received, before any decoding. */
export interface ArchivedResponse {
  /** WARC-Target-URI: the URL the request went to. */
  readonly url: string;
  readonly status: number;
  /** The HTTP headers as received (lookup ignores case; repeated headers joined with `, `). */
  readonly headers: Headers;
  /** The body as received: still content-encoded. */
  readonly payload: Buffer;
  /** WARC-Truncated, when the body is not whole. */
  readonly truncated: string | null;
}

export interface ReadResponseOptions {
  /** Also check the record against its WARC-Block-Digest and WARC-Payload-Digest (recordDigestProblem). */
  readonly digests?: boolean;
}

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
 * record, is `corrupt`; so, with `digests`, is a record that does not match its own digests.
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
  return parseResponseRecord(member.body, where);
}

/** An inflated WARC record read as a response record (warcio); anything else is `corrupt`, named by `where`. */
export async function parseResponseRecord(record: Buffer, where: string): Promise<ArchivedResponse> {
  const parsed = await WARCParser.parse([record]).catch(() => null);
  if (parsed?.warcType !== 'response' || !parsed.httpHeaders) {
    throw new ObservatoryError('corrupt', `${where} is not a WARC response record`);
  }
  const payload = Buffer.from(await parsed.readFully(false));
  return {
    url: parsed.warcTargetURI ?? '',
    status: Number(parsed.httpHeaders.statusCode),
    headers: parsed.httpHeaders.headers as Headers,
    payload,
    truncated: parsed.warcHeader('WARC-Truncated') ?? null,
  };
}
