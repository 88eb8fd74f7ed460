import { createHash } from 'node:crypto';
import type {
  FetchResult,
  MemoryLease,
  PreviousObservation,
  Statement,
  Validation,
  Validators,
} from '../core/index.ts';
import { urlPld } from '../core/index.ts';
import type { UrlClaim } from '../web/index.ts';
import type { CrawlFetcher } from './crawl.ts';

/**
 * What a crawl knows of its URLs' previous observations (the observe stage reads them from the
 * published snapshots): enough to ask a server whether a document changed, and its statements to
 * carry over when the answer is 304.
 */
export interface Revisits {
  previous(url: string): PreviousObservation | undefined;
  statements(observation: PreviousObservation): Promise<Statement[]>;
}

/**
 * What a crawl knows of a PLD's 304s: none checked yet, its first one checked, or one shown wrong
 * (no conditional request again). A distributed worker moves it with the PLD's lease.
 */
export type PldTrust = 'unchecked' | 'checked' | 'distrusted';

/** A re-visit's answer: the fetch to record, what the validators did, and the statements carried over. */
export interface RevisitOutcome {
  readonly fetched: FetchResult;
  readonly validation: Validation | null;
  /** With validation `not_modified`: the previous observation and its statements. */
  readonly carried: { readonly from: PreviousObservation; readonly statements: Statement[] } | null;
}

/**
 * One 304 in this many (by URL) is checked with an unconditional request even on a PLD whose
 * first 304 of the crawl was right: validators that lie only sometimes are caught too.
 */
const CHECK_ONE_IN = 16;

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/** RFC 9110 13.1.2: entity-tags compared weakly. */
const sameTag = (a: string, b: string) => a.trim().replace(/^W\//, '') === b.trim().replace(/^W\//, '');

/**
 * A 304 that says itself it is not about the version asked about: RFC 9110 (15.4.5) has it send
 * the validators a 200 would, so an ETag other than the one asked with, or a Last-Modified later
 * than the one asked with, names a newer version than the one it claims is current.
 */
function contradicts(headers: Readonly<Record<string, string>>, asked: Validators): boolean {
  if (asked.etag && headers.etag && !sameTag(headers.etag, asked.etag)) return true;
  const sent = asked.lastModified ? Date.parse(asked.lastModified) : Number.NaN;
  const now = headers['last-modified'] ? Date.parse(headers['last-modified']) : Number.NaN;
  return now > sent;
}

function sampled(url: string): boolean {
  return createHash('sha256').update(url).digest().readUInt32BE(0) % CHECK_ONE_IN === 0;
}

/**
 * The crawl's conditional re-visits (docs/crawling.md, "Conditional re-visits"). A URL with a
 * previous observation that had validators is requested with them; a 304 for its previous final
 * URL carries the previous statements over. A server's 304s are trusted only once checked: a 304
 * that contradicts itself (its ETag or Last-Modified names another version than the one asked
 * about), the first 304 of each PLD in a crawl, and one in CHECK_ONE_IN after that, is followed by
 * an unconditional request of the same URL; a contradiction, or a body that differs from the
 * previous one, shows the validators wrong (`stale_304`: the row holds the unconditional answer),
 * and that PLD gets no conditional request again in this crawl.
 */
export class RevisitPolicy {
  private readonly checked = new Set<string>();
  private readonly distrusted = new Set<string>();
  private readonly fetcher: CrawlFetcher;
  private readonly revisits: Revisits;

  constructor(fetcher: CrawlFetcher, revisits: Revisits) {
    this.fetcher = fetcher;
    this.revisits = revisits;
  }

  trustOf(pld: string): PldTrust {
    if (this.distrusted.has(pld)) return 'distrusted';
    return this.checked.has(pld) ? 'checked' : 'unchecked';
  }

  /** Takes over what another holder of the PLD learned of its 304s. */
  adoptTrust(pld: string, trust: PldTrust): void {
    if (trust === 'unchecked') this.checked.delete(pld);
    else this.checked.add(pld);
    if (trust === 'distrusted') this.distrusted.add(pld);
    else this.distrusted.delete(pld);
  }

  /**
   * Fetches `url` as a re-visit; every body is charged to `lease`, and `answered` is called once the
   * last answer this re-visit asks for is over (see CrawlFetcher): after a 304 that is not checked,
   * or after the unconditional check of one that is.
   */
  async fetch(
    url: string,
    claim: UrlClaim,
    lease?: MemoryLease,
    answered?: () => void,
  ): Promise<RevisitOutcome> {
    const previous = this.revisits.previous(url);
    const pld = urlPld(url);
    if (!previous || this.distrusted.has(pld)) {
      return {
        fetched: await this.fetcher.fetchDocument(url, undefined, claim, undefined, lease, answered),
        validation: null,
        carried: null,
      };
    }
    const validators = { url: previous.finalUrl, etag: previous.etag, lastModified: previous.lastModified };
    // decided once, when the conditional answer is over, so that the PLD is given back then unless
    // a check follows, and the check made is the one decided on
    let check: { readonly contradicted: boolean } | null | undefined;
    const decide = (fetched: FetchResult) => {
      if (check !== undefined) return check;
      const contradicted =
        fetched.conditional && fetched.status === 304 && contradicts(fetched.headers, validators);
      check =
        fetched.conditional &&
        fetched.status === 304 &&
        (contradicted || !this.checked.has(pld) || sampled(url))
          ? { contradicted }
          : null;
      if (!check) answered?.();
      return check;
    };
    const fetched = await this.fetcher.fetchDocument(url, undefined, claim, validators, lease, decide);
    const checked = decide(fetched);
    if (!fetched.conditional) return { fetched, validation: null, carried: null };
    if (fetched.status !== 304) {
      const validation =
        fetched.status === 200 && fetched.error === null && fetched.body
          ? sha256(fetched.body) === previous.contentSha256
            ? 'unmatched'
            : 'modified'
          : null;
      return { fetched, validation, carried: null };
    }
    if (checked) {
      this.checked.add(pld);
      // the verdict is the PLD's before the PLD is given back: its next re-visit must know whether
      // its 304s are trusted, as it did when the PLD was held until the document was archived
      let stale: boolean | undefined;
      const judge = (unconditional: FetchResult) => {
        if (stale !== undefined) return stale;
        const changed =
          unconditional.status === 200 && unconditional.error === null && unconditional.body !== null;
        stale = checked.contradicted || (changed && sha256(unconditional.body!) !== previous.contentSha256);
        if (stale) this.distrusted.add(pld);
        answered?.();
        return stale;
      };
      const unconditional = await this.fetcher.fetchDocument(url, undefined, claim, undefined, lease, judge);
      if (judge(unconditional)) return { fetched: unconditional, validation: 'stale_304', carried: null };
    }
    return {
      fetched,
      validation: 'not_modified',
      carried: { from: previous, statements: await this.revisits.statements(previous) },
    };
  }
}
