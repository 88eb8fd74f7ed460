import { createHash } from 'node:crypto';
import type { CrawlConfig, CrawlSegment, DocumentRecord, FetchResult, Statement } from '../core/index.ts';
import { urlPld } from '../core/index.ts';
import { type ContextLoader, readDocument, readLimits } from '../rdf/index.ts';
import type { RevisitOutcome } from './revisit.ts';

/** A fetched, parsed document ready for the journal. */
export interface ProcessedDocument {
  readonly record: DocumentRecord;
  readonly statements: readonly Statement[];
}

/** How a crawl reads its documents: the limits in its config, and its JSON-LD context loader. */
export interface Reading {
  readonly config: CrawlConfig;
  readonly loadContext?: ContextLoader;
}

/**
 * Turns one fetch into a document record and its statements: parse and hash (in a parse worker,
 * within the config's CPU budget and context limit), and note what came back. A re-visit answered
 * 304 is not parsed: its record repeats the previous observation's content fields and its
 * statements are the previous ones, so that the snapshot holds the document whole.
 */
export async function processFetch(
  fetch: FetchResult,
  where: { segment: CrawlSegment; round: number },
  reading: Reading,
  revisit?: Pick<RevisitOutcome, 'validation' | 'carried'>,
): Promise<ProcessedDocument> {
  const carried = revisit?.carried ?? null;
  if (carried) return carriedDocument(fetch, where, revisit?.validation ?? null, carried);
  const body = fetch.body;
  const parsed =
    body && fetch.error === null
      ? await readDocument(
          {
            body,
            contentType: fetch.headers['content-type'] ?? null,
            documentUrl: fetch.finalUrl,
            loadContext: reading.loadContext,
          },
          readLimits(reading.config),
        )
      : null;
  const statements = parsed?.statements ?? [];
  const record: DocumentRecord = {
    ...fetchFields(fetch, where),
    error: fetch.error ?? parsed?.error ?? null,
    errorMessage: fetch.errorMessage ?? parsed?.errorMessage ?? null,
    contentType: fetch.headers['content-type'] ?? null,
    format: parsed?.format ?? null,
    bytes: body?.length ?? 0,
    statements: statements.length,
    contentSha256: body ? createHash('sha256').update(body).digest('hex') : null,
    graphHash: parsed?.graphHash ?? null,
    etag: fetch.headers.etag ?? null,
    lastModified: fetch.headers['last-modified'] ?? null,
    validation: revisit?.validation ?? null,
    carriedFrom: null,
  };
  return { record, statements };
}

/** What a record takes from its fetch whatever the body gave: where, when, the answer's head, the pointer. */
function fetchFields(fetch: FetchResult, where: { segment: CrawlSegment; round: number }) {
  return {
    url: fetch.url,
    finalUrl: fetch.finalUrl,
    pld: urlPld(fetch.url),
    segment: where.segment,
    round: where.round,
    fetchedAt: fetch.startedAt,
    durationMs: fetch.durationMs,
    status: fetch.status,
    headers: fetch.headers,
    redirects: fetch.redirects,
    warcFilename: fetch.warc?.filename ?? null,
    warcOffset: fetch.warc?.offset ?? null,
    warcLength: fetch.warc?.length ?? null,
  };
}

/** The record of a 304 whose previous observation is carried over (see processFetch). */
function carriedDocument(
  fetch: FetchResult,
  where: { segment: CrawlSegment; round: number },
  validation: RevisitOutcome['validation'],
  carried: NonNullable<RevisitOutcome['carried']>,
): ProcessedDocument {
  const { from, statements } = carried;
  const record: DocumentRecord = {
    ...fetchFields(fetch, where),
    error: null,
    errorMessage: null,
    contentType: fetch.headers['content-type'] ?? from.contentType,
    format: from.format,
    bytes: from.bytes,
    statements: statements.length,
    contentSha256: from.contentSha256,
    graphHash: from.graphHash,
    // a 304 may send updated validators (RFC 9110, 15.4.5); the next re-visit asks with those
    etag: fetch.headers.etag ?? from.etag,
    lastModified: fetch.headers['last-modified'] ?? from.lastModified,
    validation,
    carriedFrom: from.snapshot,
  };
  return { record, statements };
}
