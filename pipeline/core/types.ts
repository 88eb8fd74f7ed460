/**
 * The data that flows between stages. web -> rdf -> crawl -> snapshot -> schedule/stats talk only
 * through these shapes (and the files named in DESIGN.md), never through each other's insides.
 */
import type { ErrorCode } from './errors.ts';

/** What a statement's object is: `triple` is an RDF 1.2 triple term (docs/rdf.md, RDF 1.2). */
export type ObjectKind = 'iri' | 'bnode' | 'literal' | 'triple';

/** The base direction of an RDF 1.2 directional language-tagged string (`"…"@en--ltr`). */
export type BaseDirection = 'ltr' | 'rtl';

/**
 * One statement as the observatory stores it. Subjects and objects are IRIs, or blank nodes as
 * `_:label` with labels already unique per document; literals carry their lexical form in
 * `object` with `datatype`/`lang`/`direction` beside it; a triple term (RDF 1.2) is its N-Triples
 * 1.2 text in `object`, `<<( s p o )>>`, its blank nodes labelled as the document's others. The
 * graph (the document URL) is added at output. The two RDF 1.2 / dataset fields are absent, not
 * null, when they do not apply (nearly always), so that an ordinary statement costs no more memory.
 */
export interface Statement {
  readonly subject: string;
  readonly predicate: string;
  readonly object: string;
  readonly objectKind: ObjectKind;
  /**
   * Datatype IRI of a literal (xsd:string, rdf:langString and rdf:dirLangString included); null for
   * IRIs, blank nodes and triple terms.
   */
  readonly datatype: string | null;
  /** Language tag of a literal, lower-cased; null otherwise. */
  readonly lang: string | null;
  /** Base direction of a literal that has one (datatype rdf:dirLangString); absent otherwise. */
  readonly direction?: BaseDirection;
  /**
   * The graph name the publisher put the statement in (an IRI, or a blank node as `_:label`): a
   * named graph of an N-Quads, TriG or JSON-LD document. Absent in the default graph. Our graph is
   * still the document; this is kept beside it (quads.parquet `source_graph`).
   */
  readonly sourceGraph?: string;
}

/** The RDF syntaxes the observatory reads; `rdfa` is RDFa in (X)HTML. */
export type RdfFormat = 'rdfxml' | 'turtle' | 'ntriples' | 'nquads' | 'trig' | 'jsonld' | 'n3' | 'rdfa';

/** One redirect hop, as recorded in redirects.parquet. */
export interface RedirectHop {
  readonly from: string;
  readonly to: string;
  readonly status: number;
  readonly at: number;
}

/** What one fetch (all its redirect hops and retries) produced. */
export interface FetchResult {
  /** The URL asked for. */
  readonly url: string;
  /** The URL whose response carried the body (after redirects); equals url without redirects. */
  readonly finalUrl: string;
  /** HTTP status of the final response; null when no response arrived. */
  readonly status: number | null;
  readonly error: ErrorCode | null;
  /** Human detail of the error (never matched on). */
  readonly errorMessage: string | null;
  /** Response headers of the final response, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  /** Decompressed body; null on error before a body was read. */
  readonly body: Buffer | null;
  /** When the first request started (epoch ms) and how long the whole fetch took. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly redirects: readonly RedirectHop[];
  /** Requests sent, robots.txt excluded (1 + redirect hops + retries). */
  readonly attempts: number;
  /**
   * True when the fetch stopped before requesting `finalUrl` because the caller's claim said another
   * fetch of the crawl requests it (status, headers and body are then that fetch's).
   */
  readonly handedOver: boolean;
  /** The id of the exchange (web ExchangeRecord.id) whose response ends this fetch; null when none arrived. */
  readonly responseId: number | null;
  /** Where the archive keeps that response; absent or null when it is not archived. */
  readonly warc?: WarcPointer | null;
  /** True when the request that got the final response carried validators (If-None-Match / If-Modified-Since). */
  readonly conditional: boolean;
}

/** Validators of a previous observation, sent when a re-visit requests the URL they belong to. */
export interface Validators {
  /** The URL whose response carried them: the previous observation's final URL. */
  readonly url: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
}

/**
 * What a conditional re-visit did (documents.parquet `validation`): `not_modified`, a 304 whose
 * statements were carried over; `modified`, a full answer with other content; `unmatched`, a full
 * answer with the same content (the server did not recognise its own validators, e.g. an ETag that
 * changes on every response); `stale_304`, a 304 that an unconditional check found wrong (the
 * content had changed): the row holds the check's answer.
 */
export type Validation = 'not_modified' | 'modified' | 'unmatched' | 'stale_304';

/**
 * A URL's previous observation, as far as a re-visit needs it: to ask, to carry over on a 304, and
 * to archive an unchanged answer as a revisit of its record.
 */
export interface PreviousObservation {
  /** The snapshot that holds it. */
  readonly snapshot: string;
  readonly finalUrl: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly contentSha256: string;
  readonly graphHash: string | null;
  readonly format: RdfFormat | null;
  readonly contentType: string | null;
  /** Decompressed body size. */
  readonly bytes: number;
  /** Its archived response record, in the snapshot's folder; null when it kept no archive. */
  readonly warc: WarcPointer | null;
}

/** Where a WARC response record lies: Common Crawl's pointer, the gzip member in its file. */
export interface WarcPointer {
  /** File name within the crawl's archive folder, e.g. `2026-11-16-00000.warc.gz`. */
  readonly filename: string;
  readonly offset: number;
  readonly length: number;
}

/** What parsing one document produced. */
export interface ParseResult {
  /** Syntax used; null when the body was not recognised as RDF. */
  readonly format: RdfFormat | null;
  readonly statements: readonly Statement[];
  /** `parse` (statements before the error are kept), `not_rdf`, or null. */
  readonly error: ErrorCode | null;
  readonly errorMessage: string | null;
}

export type CrawlSegment = 'kernel' | 'adaptive' | 'expand';
/** weekly and interval snapshots observe the kernel over time; an expand snapshot is one crawl of the kernel's expansion. */
export type SnapshotKind = 'weekly' | 'interval' | 'expand';

/** One row of documents.parquet: one URI attempted in one crawl. */
export interface DocumentRecord {
  readonly url: string;
  readonly finalUrl: string;
  readonly pld: string;
  readonly segment: CrawlSegment;
  readonly round: number;
  readonly fetchedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: ErrorCode | null;
  readonly errorMessage: string | null;
  readonly contentType: string | null;
  readonly format: RdfFormat | null;
  readonly bytes: number;
  readonly statements: number;
  readonly contentSha256: string | null;
  /** Isomorphism-invariant hash of the document's graph; null when it has no statements. */
  readonly graphHash: string | null;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly redirects: readonly RedirectHop[];
  /**
   * Set when this fetch reached its final URL after another fetch of the crawl had requested it: the
   * url of the record that downloaded it. Such a record carries its own url, times and redirect hops,
   * the final URL and the owner's status, error, format and statements; it has no statements of its
   * own, and publishing copies the owner's other response fields. Absent: this fetch downloaded it.
   */
  readonly downloadedBy?: string;
  /**
   * Where the WARC response record that carried this document's final response lies; null when the
   * archive is off, no response arrived, or the record was handed over (downloadedBy). Journals
   * written before the archive existed lack the fields: read them as null.
   */
  readonly warcFilename?: string | null;
  readonly warcOffset?: number | null;
  readonly warcLength?: number | null;
  /** What a conditional re-visit did (see Validation); null or absent: the request was unconditional. */
  readonly validation?: Validation | null;
  /** With validation `not_modified`: the snapshot whose statements and content fields this row repeats. */
  readonly carriedFrom?: string | null;
}

/** A finished fetch as the crawl journal stores it and the publisher reads it. */
export interface CrawledDocument {
  readonly record: DocumentRecord;
  /** The document's statements; their graph is record.finalUrl. */
  readonly statements: readonly Statement[];
}

/** One row of schedule.parquet: a kernel document's re-visit state after a crawl. */
export interface ScheduleEntry {
  readonly url: string;
  /** DyLDO level 0..4: fetched 1x, 2x, 4x, 8x, 16x a week. */
  readonly level: number;
  readonly intervalMs: number;
  readonly nextDue: number;
  readonly strategy: string;
  /** Strategy-specific state (JSON) needed to continue the schedule. */
  readonly state: string;
}
