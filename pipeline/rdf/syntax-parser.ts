import type { StatementBuilder } from './statement-builder.ts';
import type { BodyEncoding } from './text-encoding.ts';

/**
 * Loads a remote JSON-LD context as text; injected by the crawler, which fetches politely, caches
 * and bounds how many a crawl fetches. A refusal rejects with ObservatoryError `context_limit`.
 */
export type ContextLoader = (url: string) => Promise<string>;

/** A bound refused the document: not a syntax error, and not read either (see docs/errors.md). */
export interface Refusal {
  readonly code: 'too_complex' | 'context_limit';
  readonly message: string;
}

/** What one syntax's adapter needs besides the text. */
export interface SyntaxInput {
  /** The decoded body (decoded on first read: a reader of the bytes may never need it). */
  readonly text: string;
  /** The body's bytes and the encoding `text` is decoded from. */
  readonly body: Uint8Array;
  readonly encoding: BodyEncoding;
  /** Base IRI: the document's final URL. */
  readonly baseIri: string;
  readonly builder: StatementBuilder;
  readonly loadContext?: ContextLoader;
  /** Distinct remote JSON-LD contexts one document may name (nested ones included). */
  readonly maxContexts: number;
  /** The media type as served, for parsers that behave differently on HTML and XHTML. */
  readonly mediaType: string | null;
}

/**
 * One syntax's adapter: feeds the builder and resolves to null on success, to the message of the
 * syntax error that stopped it (statements before the error stay in the builder), or to the
 * refusal of a bound. Never rejects.
 */
export type SyntaxParser = (input: SyntaxInput) => Promise<string | Refusal | null>;
