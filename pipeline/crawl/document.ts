import { createHash } from 'node:crypto';
import type { CrawlSegment, DocumentRecord, FetchResult, Statement } from '../core/index.ts';
import { urlPld } from '../core/index.ts';
import { type ContextLoader, graphHash, parseDocument } from '../rdf/index.ts';

/** A fetched, parsed document ready for the journal. */
export interface ProcessedDocument {
  readonly record: DocumentRecord;
  readonly statements: readonly Statement[];
}

/** Turns one fetch into a document record and its statements: parse, hash, and note what came back. */
export async function processFetch(
  fetch: FetchResult,
  where: { segment: CrawlSegment; round: number },
  loadContext?: ContextLoader,
): Promise<ProcessedDocument> {
  const body = fetch.body;
  const parsed =
    body && fetch.error === null
      ? await parseDocument({
          body,
          contentType: fetch.headers['content-type'] ?? null,
          documentUrl: fetch.finalUrl,
          loadContext,
        })
      : null;
  const statements = parsed?.statements ?? [];
  const record: DocumentRecord = {
    url: fetch.url,
    finalUrl: fetch.finalUrl,
    pld: urlPld(fetch.url) ?? fetch.url,
    segment: where.segment,
    round: where.round,
    fetchedAt: fetch.startedAt,
    durationMs: fetch.durationMs,
    status: fetch.status,
    error: fetch.error ?? parsed?.error ?? null,
    errorMessage: fetch.errorMessage ?? parsed?.errorMessage ?? null,
    contentType: fetch.headers['content-type'] ?? null,
    format: parsed?.format ?? null,
    bytes: body?.length ?? 0,
    statements: statements.length,
    contentSha256: body ? createHash('sha256').update(body).digest('hex') : null,
    graphHash: statements.length > 0 ? await graphHash(statements) : null,
    etag: fetch.headers.etag ?? null,
    lastModified: fetch.headers['last-modified'] ?? null,
    headers: fetch.headers,
    redirects: fetch.redirects,
  };
  return { record, statements };
}
