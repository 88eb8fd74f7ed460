import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { WARCParser } from 'warcio';
import { ObservatoryError, type WarcPointer } from '../core/index.ts';

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

/**
 * The response record at `pointer` in the WARC files of `dir`, read with warcio (one gzip member,
 * read alone). A pointer that names no response record is `corrupt`.
 */
export async function readArchivedResponse(dir: string, pointer: WarcPointer): Promise<ArchivedResponse> {
  const path = join(dir, pointer.filename);
  const where = `${path} at ${pointer.offset} (+${pointer.length})`;
  const handle = await open(path).catch((error: unknown) => {
    throw new ObservatoryError('corrupt', `${where}: ${(error as Error).message}`);
  });
  let bytes: Buffer;
  try {
    bytes = Buffer.alloc(pointer.length);
    const { bytesRead } = await handle.read(bytes, 0, pointer.length, pointer.offset);
    bytes = bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const record = await WARCParser.parse([bytes]).catch(() => null);
  if (record?.warcType !== 'response' || !record.httpHeaders) {
    throw new ObservatoryError('corrupt', `${where} is not a WARC response record`);
  }
  const payload = Buffer.from(await record.readFully(false));
  return {
    url: record.warcTargetURI ?? '',
    status: Number(record.httpHeaders.statusCode),
    headers: record.httpHeaders.headers as Headers,
    payload,
    truncated: record.warcHeader('WARC-Truncated') ?? null,
  };
}
