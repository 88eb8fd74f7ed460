import type { DocumentRecord, FetchResult } from '../core/index.ts';
import { urlPld } from '../core/index.ts';
import { redirectLoopMessage } from '../web/index.ts';
import { doubled, UrlTable } from './url-table.ts';

/** No fetch claimed the URL (it is in the table as another record's final URL or downloadedBy). */
const UNCLAIMED = -1;
/** The record of the document with this id is not journaled yet. */
const UNFINISHED = -1;

/** A small set of strings (error codes, formats) as numbers, null being 0. */
class Interned<T extends string> {
  private readonly names: (T | null)[] = [null];
  private readonly index = new Map<T, number>();

  of(name: T | null): number {
    if (name === null) return 0;
    let at = this.index.get(name);
    if (at === undefined) {
      at = this.names.push(name) - 1;
      this.index.set(name, at);
    }
    return at;
  }

  name(at: number): T | null {
    return this.names[at];
  }
}

/** What a record whose fetch handed over copies from the record that downloaded its final URL. */
interface Outcome {
  readonly finalUrl: string;
  readonly downloadedBy: string;
  readonly status: number | null;
  readonly error: DocumentRecord['error'];
  readonly format: DocumentRecord['format'];
  readonly statements: number;
}

/**
 * The rule "a final URL is fetched and stored once per crawl". Every URL a fetch requests (the URL
 * asked for, each redirect target) is claimed by that fetch first; a fetch that meets a URL another
 * fetch claimed stops there (the web stage hands over) and its record points at that fetch's
 * outcome.
 *
 * Claims and outcomes last the whole crawl, one per URL requested, so they are kept like the
 * frontier keeps its URLs: each URL is an id in a UrlTable (its bytes off V8's heap), and who
 * claimed it and the outcome of the document it names are typed-array columns indexed by that id.
 * As JS strings in Maps they cost about 315 bytes of V8 heap per document and grew the crawl's
 * peak with the crawl (docs/operating.md, "Memory").
 */
export class UrlClaims {
  private readonly urls = new UrlTable();
  /** Id of the document url that claimed the URL, or UNCLAIMED. */
  private owners = new Int32Array(1024);
  /** The outcome of the document with this id: its final URL's id, or UNFINISHED until journaled. */
  private finalUrls = new Int32Array(1024);
  private downloadedBys = new Int32Array(1024);
  /** HTTP status, -1 for null. */
  private statuses = new Int32Array(1024);
  private errors = new Uint8Array(1024);
  private formats = new Uint8Array(1024);
  private statementCounts = new Uint32Array(1024);
  private readonly errorNames = new Interned<NonNullable<DocumentRecord['error']>>();
  private readonly formatNames = new Interned<NonNullable<DocumentRecord['format']>>();
  /** Document url -> fetches in flight waiting for its record (settled when it is journaled or fails). */
  private readonly waiters = new Map<string, Array<{ resolve(): void; reject(error: unknown): void }>>();
  /** Handed-over fetch -> the fetch it waits for: a cycle of these is a redirect loop across fetches. */
  private readonly waitsFor = new Map<string, string>();

  /** True when `by` may request `url`: nobody claimed it, or `by` did. */
  claim(url: string, by: string): boolean {
    const id = this.idOf(url);
    const byId = this.idOf(by);
    if (this.owners[id] === UNCLAIMED) this.owners[id] = byId;
    return this.owners[id] === byId;
  }

  /**
   * Notes a journaled record (live or replayed): the URLs its fetch requested stay claimed by it, so
   * that after a resume an already-fetched final URL is not fetched again, and records waiting for it
   * are released.
   */
  finished(record: DocumentRecord): void {
    const doc = this.idOf(record.url);
    const requested = [record.url, ...record.redirects.map((hop) => hop.to)];
    // a handed-over fetch did not request its last URL: another fetch did
    if (record.downloadedBy !== undefined) requested.pop();
    for (const url of requested) {
      const id = this.idOf(url);
      if (this.owners[id] === UNCLAIMED) this.owners[id] = doc;
    }
    const finalUrl = this.idOf(record.finalUrl);
    const downloadedBy = this.idOf(record.downloadedBy ?? record.url);
    this.finalUrls[doc] = finalUrl;
    this.downloadedBys[doc] = downloadedBy;
    this.statuses[doc] = record.status ?? -1;
    this.errors[doc] = this.errorNames.of(record.error);
    this.formats[doc] = this.formatNames.of(record.format);
    this.statementCounts[doc] = record.statements;
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
   * hand-overs that leads back to this fetch is a redirect loop (each waits for the next), and so is
   * a URL this fetch claimed itself (a coordinated crawl's fetch continued on other PLDs that came
   * back to its own path: the loop of one fetch, told as one fetch tells it).
   */
  async handOver(
    fetched: FetchResult,
    where: Pick<DocumentRecord, 'segment' | 'round'>,
  ): Promise<DocumentRecord> {
    const ownerId = this.owners[this.idOf(fetched.finalUrl)];
    const owner = this.urls.url(ownerId);
    if (this.leadsBackTo(owner, fetched.url)) {
      // like a loop within one fetch: the last URL this fetch requested, with its 3xx status
      const message =
        owner === fetched.url
          ? redirectLoopMessage(fetched.finalUrl)
          : `${fetched.finalUrl} leads back to ${fetched.url} through other fetches`;
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
        message,
      );
    }
    if (this.finalUrls[ownerId] === UNFINISHED) {
      this.waitsFor.set(fetched.url, owner);
      await new Promise<void>((resolve, reject) => {
        const list = this.waiters.get(owner) ?? [];
        list.push({ resolve, reject });
        this.waiters.set(owner, list);
      });
    }
    return this.record(fetched, where, this.outcomeOf(ownerId));
  }

  /** The outcome of the journaled document with id `doc`. */
  private outcomeOf(doc: number): Outcome {
    const status = this.statuses[doc];
    return {
      finalUrl: this.urls.url(this.finalUrls[doc]),
      downloadedBy: this.urls.url(this.downloadedBys[doc]),
      status: status < 0 ? null : status,
      error: this.errorNames.name(this.errors[doc]),
      format: this.formatNames.name(this.formats[doc]),
      statements: this.statementCounts[doc],
    };
  }

  /** The id of `url` in the table, added (unclaimed, unfinished) when it is new. */
  private idOf(url: string): number {
    const known = this.urls.id(url);
    if (known !== undefined) return known;
    const id = this.urls.add(url);
    if (id === this.owners.length) {
      this.owners = doubled(this.owners);
      this.finalUrls = doubled(this.finalUrls);
      this.downloadedBys = doubled(this.downloadedBys);
      this.statuses = doubled(this.statuses);
      this.errors = doubled(this.errors);
      this.formats = doubled(this.formats);
      this.statementCounts = doubled(this.statementCounts);
    }
    this.owners[id] = UNCLAIMED;
    this.finalUrls[id] = UNFINISHED;
    return id;
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
    /** The message of a redirect loop; null: not a loop. */
    loop: string | null = null,
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
      errorMessage: loop,
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
