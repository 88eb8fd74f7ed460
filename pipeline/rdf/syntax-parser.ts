import type { StatementBuilder } from './statement-builder.ts';

/** Loads a remote JSON-LD context; injected by the crawler, which fetches politely and caches. */
export type ContextLoader = (url: string) => Promise<unknown>;

/** What one syntax's adapter needs besides the text. */
export interface SyntaxInput {
  readonly text: string;
  /** Base IRI: the document's final URL. */
  readonly baseIri: string;
  readonly builder: StatementBuilder;
  readonly loadContext?: ContextLoader;
  /** The media type as served, for parsers that behave differently on HTML and XHTML. */
  readonly mediaType: string | null;
}

/**
 * One syntax's adapter: feeds the builder and resolves to null on success or to the message of
 * the syntax error that stopped it (statements before the error stay in the builder). Never rejects.
 */
export type SyntaxParser = (input: SyntaxInput) => Promise<string | null>;
