import type { DocumentRecord, FetchResult } from '../core/index.ts';
import { urlPld } from '../core/index.ts';

/** What a record whose fetch handed over copies from the record that downloaded its final URL. */
interface Outcome {
  readonly finalUrl: string;
  readonly downloadedBy: string;
  readonly status: number | null;
  readonly error: DocumentRecord['error'];
  readonly format: DocumentRecord['format'];
  readonly statements: number;
}

function outcomeOf(record: DocumentRecord): Outcome {
  return {
    finalUrl: record.finalUrl,
    downloadedBy: record.downloadedBy ?? record.url,
    status: record.status,
    error: record.error,
    format: record.format,
    statements: record.statements,
  };
}

/**
 * The rule "a final URL is fetched and stored once per crawl". Every URL a fetch requests (the URL
 * asked for, each redirect target) is claimed by that fetch first; a fetch that meets a URL another
 * fetch claimed stops there (the web stage hands over) and its record points at that fetch's
 * outcome. Claims are plain strings, and each finished fetch keeps a small outcome (not its
 * statements or headers), so this costs about what the frontier does per URL.
 */
export class UrlClaims {
  /** Requested URL -> url of the fetch (the document) that claimed it. */
  private readonly claims = new Map<string, string>();
  /** Document url -> its outcome, once journaled. */
  private readonly outcomes = new Map<string, Outcome>();
  /** Document url -> fetches in flight waiting for its record (settled when it is journaled or fails). */
  private readonly waiters = new Map<string, Array<{ resolve(): void; reject(error: unknown): void }>>();
  /** Handed-over fetch -> the fetch it waits for: a cycle of these is a redirect loop across fetches. */
  private readonly waitsFor = new Map<string, string>();

  /** True when `by` may request `url`: nobody claimed it, or `by` did. */
  claim(url: string, by: string): boolean {
    const owner = this.claims.get(url);
    if (owner === undefined) {
      this.claims.set(url, by);
      return true;
    }
    return owner === by;
  }

  /**
   * Notes a journaled record (live or replayed): the URLs its fetch requested stay claimed by it, so
   * that after a resume an already-fetched final URL is not fetched again, and records waiting for it
   * are released.
   */
  finished(record: DocumentRecord): void {
    const requested = [record.url, ...record.redirects.map((hop) => hop.to)];
    // a handed-over fetch did not request its last URL: another fetch did
    if (record.downloadedBy !== undefined) requested.pop();
    for (const url of requested) if (!this.claims.has(url)) this.claims.set(url, record.url);
    this.outcomes.set(record.url, outcomeOf(record));
    this.waitsFor.delete(record.url);
    for (const waiter of this.waiters.get(record.url) ?? []) waiter.resolve();
    this.waiters.delete(record.url);
  }

  /** The fetch of `url` failed (the crawl stops): those waiting for it fail too, rather than wait for ever. */
  failed(url: string, error: unknown): void {
    for (const waiter of this.waiters.get(url) ?? []) waiter.reject(error);
    this.waiters.delete(url);
  }

  /**
   * The record of a fetch that handed over at `fetched.finalUrl`: its own url, times and redirect
   * hops, and the outcome of the fetch that claimed that URL, once that one is journaled. A chain of
   * hand-overs that leads back to this fetch is a redirect loop (each waits for the next).
   */
  async handOver(
    fetched: FetchResult,
    where: Pick<DocumentRecord, 'segment' | 'round'>,
  ): Promise<DocumentRecord> {
    const owner = this.claims.get(fetched.finalUrl)!;
    if (this.leadsBackTo(owner, fetched.url)) {
      // like a loop within one fetch: the last URL this fetch requested, with its 3xx status
      return this.record(
        fetched,
        where,
        {
          finalUrl: fetched.redirects.at(-1)?.from ?? fetched.url,
          downloadedBy: fetched.url,
          status: fetched.redirects.at(-1)?.status ?? null,
          error: 'redirect_loop',
          format: null,
          statements: 0,
        },
        true,
      );
    }
    if (!this.outcomes.has(owner)) {
      this.waitsFor.set(fetched.url, owner);
      await new Promise<void>((resolve, reject) => {
        const list = this.waiters.get(owner) ?? [];
        list.push({ resolve, reject });
        this.waiters.set(owner, list);
      });
    }
    return this.record(fetched, where, this.outcomes.get(owner)!);
  }

  private leadsBackTo(owner: string, url: string): boolean {
    for (let at: string | undefined = owner; at !== undefined; at = this.waitsFor.get(at)) {
      if (at === url) return true;
    }
    return false;
  }

  private record(
    fetched: FetchResult,
    where: Pick<DocumentRecord, 'segment' | 'round'>,
    outcome: Outcome,
    loop = false,
  ): DocumentRecord {
    return {
      url: fetched.url,
      finalUrl: outcome.finalUrl,
      pld: urlPld(fetched.url),
      segment: where.segment,
      round: where.round,
      fetchedAt: fetched.startedAt,
      durationMs: fetched.durationMs,
      status: outcome.status,
      error: outcome.error,
      errorMessage: loop ? `${fetched.finalUrl} leads back to ${fetched.url} through other fetches` : null,
      contentType: null,
      format: outcome.format,
      bytes: 0,
      statements: outcome.statements,
      contentSha256: null,
      graphHash: null,
      etag: null,
      lastModified: null,
      headers: {},
      redirects: fetched.redirects,
      ...(loop ? {} : { downloadedBy: outcome.downloadedBy }),
    };
  }
}
