import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ArchivedResponse } from '../archive/index.ts';
import { decodeContentCoding } from '../web/index.ts';

/** The errors readDocument gives: a row with one of these (or none) had its body read by the crawl. */
export const READ_ERRORS: ReadonlySet<string> = new Set(['not_rdf', 'parse', 'too_complex', 'context_limit']);

/**
 * The documents.parquet rows (schema 3 on) whose body the crawl decoded and read from the record
 * their pointer names, as SQL: content_sha256 is then the SHA-256 of that decoded body. A 304 that
 * carried statements over points at a record without a body; its content columns are the
 * earlier observation's.
 */
export const BODY_READ_SQL = `warc_filename IS NOT NULL AND carried_from IS NULL AND content_sha256 IS NOT NULL
  AND (error IS NULL OR error IN (${[...READ_ERRORS].map((e) => `'${e}'`).join(', ')}))`;

/**
 * An archived response's body as the crawler decoded it (pipeline/web/content-coding.ts): its
 * Content-Encoding undone while streaming, `too_large` past `maxBytes`, `bad_encoding` when it does
 * not decode.
 */
export async function decodedBody(response: ArchivedResponse, maxBytes: number): Promise<Buffer> {
  const encoding = response.headers.get('content-encoding') ?? undefined;
  return (await decodeContentCoding(Readable.from([response.payload]), encoding, maxBytes, 'fail')).body;
}

/** SHA-256 (hex) of a body, as documents.content_sha256 holds it. */
export function contentSha256(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
