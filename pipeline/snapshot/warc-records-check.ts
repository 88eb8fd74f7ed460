import { join } from 'node:path';
import {
  type FileMember,
  gzipMembers,
  notWhole,
  parseResponseRecord,
  type RecordLimits,
  type RevisitReferents,
  recordDigestProblem,
  recordLimits,
} from '../archive/index.ts';
import { BODY_READ_SQL, contentSha256, decodedBody } from './archived-body.ts';
import { sqlString } from './duckdb-session.ts';
import { corrupt } from './folder-error.ts';
import type { CheckContext } from './outputs.ts';
import { parquetFileName } from './schema.ts';

/** A documents row whose body the crawl read (BODY_READ_SQL): where its record lies and the hash of its body. */
interface BodyRow {
  readonly url: string;
  readonly offset: number;
  readonly sha256: string;
}

async function bodyRows(ctx: CheckContext, file: string): Promise<BodyRow[]> {
  const documents = sqlString(join(ctx.folder, parquetFileName('documents')));
  const rows = await ctx.connection.runAndReadAll(`SELECT url, warc_offset, content_sha256
    FROM read_parquet(${documents}) WHERE ${BODY_READ_SQL} AND warc_filename = ${sqlString(file)}
    ORDER BY warc_offset, url`);
  return rows.getRows().map(([url, offset, sha256]) => ({
    url: url as string,
    offset: Number(offset),
    sha256: sha256 as string,
  }));
}

/** Where a revisit's referent is read from, and within which limits. */
interface Resolution {
  readonly limits: RecordLimits;
  readonly referents: RevisitReferents;
}

/**
 * The body of the response record `member` (through a revisit, the record it refers to) decoded as
 * the crawl decoded it, checked against each row pointing there.
 */
async function checkBodies(
  ctx: CheckContext,
  file: string,
  member: FileMember,
  rows: readonly BodyRow[],
  resolution: Resolution,
) {
  const where = `${join(ctx.folder, file)} at ${member.offset}`;
  let sha256: string;
  try {
    sha256 = contentSha256(
      await decodedBody(await parseResponseRecord(member.body, where, resolution), ctx.config.maxBytes),
    );
  } catch (error) {
    // a zlib error as much as too_large: the crawl decoded this body within the same limit
    throw corrupt(
      ctx.folder,
      `${rows[0].url}: its body (${where}) does not decode as the crawl decoded it: ${(error as Error).message}`,
    );
  }
  for (const row of rows) {
    if (row.sha256 !== sha256) {
      throw corrupt(
        ctx.folder,
        `${row.url}: the body of its record (${where}) is not the body the crawl read (its SHA-256 is not the row's content_sha256)`,
      );
    }
  }
}

/** Whether a record's WARC head says it is a revisit. */
function isRevisit(record: Buffer): boolean {
  const text = record.subarray(0, 64 * 1024).toString('latin1');
  return /\r\nWARC-Type: *revisit\r\n/i.test(text.slice(0, text.indexOf('\r\n\r\n') + 2));
}

/**
 * A revisit no row points at (a 304 checked by a full request after it, a JSON-LD context) must
 * resolve too: the record it refers to is there, whole, of its URI and payload digest.
 */
async function checkRevisit(ctx: CheckContext, file: string, member: FileMember, resolution: Resolution) {
  const where = `${join(ctx.folder, file)} at ${member.offset}`;
  await parseResponseRecord(member.body, where, resolution).catch((error: unknown) => {
    throw corrupt(
      ctx.folder,
      `${file}: the revisit at ${member.offset}${targetOf(member.body)}: ${(error as Error).message}`,
    );
  });
}

/** ` (of URL)`: the WARC-Target-URI a record's head names, for a message; empty without one. */
function targetOf(record: Buffer): string {
  const text = record.subarray(0, 64 * 1024).toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const uri = /\r\nWARC-Target-URI: *([^\r]*)/i.exec(end < 0 ? text : text.slice(0, end));
  return uri ? ` (of ${uri[1]})` : '';
}

/**
 * `verify --deep` over the archive: every listed WARC file is whole gzip members from its first
 * byte to its last, none inflating past the crawl's record limits (recordLimits), every record
 * matches its own WARC-Block-Digest and WARC-Payload-Digest (recordDigestProblem), and the body of
 * every row the crawl read (BODY_READ_SQL) decodes, as the crawler decoded it, to the bytes its
 * content_sha256 names; a revisit resolves to the record it refers to (in a snapshot `referents`
 * gives), whether a row points at it or not. Each file is read once, record by record; progress
 * counts its bytes.
 */
export async function checkWarcRecords(
  ctx: CheckContext,
  files: readonly string[],
  referents: RevisitReferents,
): Promise<void> {
  const limits = recordLimits(ctx.config);
  const sizes = new Map(ctx.manifest.files.map((f) => [f.name, f.bytes]));
  const total = files.reduce((sum, name) => sum + (sizes.get(name) ?? 0), 0);
  const progress = ctx.progress?.('WARC bytes');
  let done = 0;
  let records = 0;
  for (const file of files) {
    const path = join(ctx.folder, file);
    const rows = await bodyRows(ctx, file);
    let next = 0;
    const members = gzipMembers(path, limits.compressed, limits.inflated);
    for (let step = members.next(); ; step = members.next()) {
      if (step.done) {
        if (step.value !== null) throw notWhole(path, step.value, limits);
        break;
      }
      const member = step.value;
      const problem = recordDigestProblem(member.body);
      if (problem !== null) {
        throw corrupt(
          ctx.folder,
          `${file}: the record at ${member.offset}${targetOf(member.body)} is damaged: ${problem}`,
        );
      }
      const here: BodyRow[] = [];
      while (next < rows.length && rows[next].offset <= member.offset) {
        if (rows[next].offset < member.offset) {
          throw corrupt(
            ctx.folder,
            `${rows[next].url} points at ${file} at ${rows[next].offset}, where no record starts`,
          );
        }
        here.push(rows[next++]);
      }
      if (here.length > 0) await checkBodies(ctx, file, member, here, { limits, referents });
      else if (isRevisit(member.body)) await checkRevisit(ctx, file, member, { limits, referents });
      records++;
      done += member.length;
      progress?.update({ done, total, extra: { records } });
    }
    if (next < rows.length) {
      throw corrupt(
        ctx.folder,
        `${rows[next].url} points at ${file} at ${rows[next].offset}, past its last record`,
      );
    }
  }
  progress?.finish({ done, total, extra: { records } });
}
