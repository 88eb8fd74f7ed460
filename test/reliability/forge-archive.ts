/**
 * What a forger does to a published folder with WARC files: records rewritten and appended with
 * their digests kept or recomputed, documents.parquet pointers moved, the manifest's config
 * edited, and (when the forger is thorough) the manifest and SHA256SUMS recomputed to match.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { openDuckDb } from '../../pipeline/snapshot/index.ts';
import { relist } from '../snapshot/relist.ts';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const CRLF2 = '\r\n\r\n';

/** Edits the manifest's config; `thorough` recomputes SHA256SUMS for it. */
export function editConfig(folder: string, edit: Record<string, unknown>, thorough: boolean): void {
  const path = join(folder, 'manifest.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  Object.assign(manifest.config, edit);
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  if (thorough) relist(folder, []);
}

/** Rows of a folder's documents.parquet. */
export async function documentRows(folder: string, sql: string): Promise<unknown[][]> {
  const session = await openDuckDb();
  try {
    const table = `read_parquet('${join(folder, 'documents.parquet')}')`;
    return (await session.connection.runAndReadAll(sql.replaceAll('documents', table))).getRows();
  } finally {
    session.close();
  }
}

/** Runs `update` (on table `d`) over documents.parquet, written back with the folder's schema version. */
export async function updateDocuments(folder: string, update: string): Promise<void> {
  const path = join(folder, 'documents.parquet');
  const version = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')).schemaVersion;
  const session = await openDuckDb();
  try {
    await session.connection.run(`CREATE TABLE d AS SELECT * FROM read_parquet('${path}')`);
    await session.connection.run(update);
    await session.connection.run(`COPY d TO '${path}.new' (FORMAT parquet,
      KV_METADATA {observatory_schema_version: '${version}'})`);
  } finally {
    session.close();
  }
  renameSync(`${path}.new`, path);
}

/** A document the crawl read whose body is not content-encoded: its url, final URL and pointer. */
export async function plainDocument(folder: string) {
  const [[url, finalUrl, file, offset, length]] = (await documentRows(
    folder,
    `SELECT url, final_url, warc_filename, warc_offset, warc_length FROM documents
      WHERE downloaded_by = url AND error IS NULL AND statements > 2 AND carried_from IS NULL
        AND headers['content-encoding'] IS NULL AND warc_filename IS NOT NULL ORDER BY url LIMIT 1`,
  )) as [string, string, string, bigint, bigint][];
  return { url, finalUrl, file, offset: Number(offset), length: Number(length) };
}

/** A WARC record split at its heads: WARC head, HTTP head, payload. */
interface RecordParts {
  warcHead: string;
  httpHead: string;
  payload: Buffer;
}

function split(record: Buffer): RecordParts {
  const warcEnd = record.indexOf(CRLF2);
  const warcHead = record.subarray(0, warcEnd).toString('latin1');
  const length = Number(/\r\nContent-Length: (\d+)/i.exec(warcHead)![1]);
  const block = record.subarray(warcEnd + 4, warcEnd + 4 + length);
  const httpEnd = block.indexOf(CRLF2);
  return {
    warcHead,
    httpHead: block.subarray(0, httpEnd).toString('latin1'),
    payload: block.subarray(httpEnd + 4),
  };
}

function setHeader(head: string, name: string, value: string): string {
  return head.replace(new RegExp(`\\r\\n${name}: [^\\r]*`, 'i'), `\r\n${name}: ${value}`);
}

export interface Forgery {
  /** The new payload from the old one (default: unchanged). */
  readonly payload?: (payload: Buffer) => Buffer;
  /** Recompute WARC-Block-Digest and WARC-Payload-Digest over the new record. */
  readonly digests: 'kept' | 'recomputed';
  /** Added to the Content-Length the record states (-10: cut by 10). */
  readonly contentLength?: number;
  /** Recompute the manifest and SHA256SUMS for the files changed. */
  readonly thorough: boolean;
}

/**
 * The record of `doc` rewritten as `forgery` says, appended to its WARC file, and the row's
 * pointer moved to it.
 */
export async function forgeRecord(
  folder: string,
  doc: Awaited<ReturnType<typeof plainDocument>>,
  forgery: Forgery,
): Promise<void> {
  const warc = join(folder, doc.file);
  const parts = split(gunzipSync(readFileSync(warc).subarray(doc.offset, doc.offset + doc.length)));
  const payload = forgery.payload?.(parts.payload) ?? parts.payload;
  const block = Buffer.concat([Buffer.from(`${parts.httpHead}${CRLF2}`, 'latin1'), payload]);
  let head = setHeader(parts.warcHead, 'Content-Length', String(block.length + (forgery.contentLength ?? 0)));
  if (forgery.digests === 'recomputed') {
    head = setHeader(head, 'WARC-Block-Digest', `sha256:${sha256(block)}`);
    head = setHeader(head, 'WARC-Payload-Digest', `sha256:${sha256(payload)}`);
  }
  const member = gzipSync(
    Buffer.concat([Buffer.from(`${head}${CRLF2}`, 'latin1'), block, Buffer.from('\r\n\r\n')]),
  );
  const offset = statSync(warc).size;
  appendFileSync(warc, member);
  await updateDocuments(
    folder,
    `UPDATE d SET warc_offset = ${offset}, warc_length = ${member.length} WHERE url = '${doc.url}'`,
  );
  if (forgery.thorough) relist(folder, ['documents.parquet', doc.file]);
}

/**
 * A response record for `url` whose body is `mib` MiB of zeros, as one gzip member (a few hundred
 * KiB per 256 MiB): what a decompression bomb in an archive looks like.
 */
export async function bombMember(url: string, mib: number): Promise<Buffer> {
  const http = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n');
  const length = http.length + mib * 1024 * 1024;
  const head = `WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: ${url}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${length}\r\n\r\n`;
  const gzip = createGzip({ level: 1 });
  const chunks: Buffer[] = [];
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => gzip.once('end', resolve));
  gzip.write(head);
  gzip.write(http);
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) {
    if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end('\r\n\r\n');
  await done;
  return Buffer.concat(chunks);
}
