import { CRAWL_DEFAULTS, type ParseResult, type RdfFormat, type Statement } from '../core/index.ts';
import { formatForMediaType, parseContentType } from './media-type.ts';
import { readHtml } from './parse-html.ts';
import { SNIFF_CHARS, sniffFormats } from './sniff.ts';
import { createStatementBuilder } from './statement-builder.ts';
import type { ContextLoader } from './syntax-parser.ts';
import { SYNTAX_PARSERS } from './syntax-parsers.ts';
import { type BodyEncoding, bodyEncoding, decodeAs } from './text-encoding.ts';

/** One fetched body, as the crawler hands it over. */
export interface DocumentInput {
  readonly body: Uint8Array;
  /** The Content-Type header as served, or null. */
  readonly contentType: string | null;
  /** Final URL of the document: base IRI and the key of its blank-node labels. */
  readonly documentUrl: string;
  /** Loads remote JSON-LD contexts; without it a remote context fails the document. */
  readonly loadContext?: ContextLoader;
  /** Distinct remote JSON-LD contexts the document may name (default: the crawl default, 8). */
  readonly maxContexts?: number;
}

interface Attempt {
  readonly format: RdfFormat;
  readonly statements: Statement[];
  readonly error: string | null;
}

/**
 * Parses a document in whatever RDF syntax it is in. The declared syntax is tried first, then
 * the sniffed candidates (see sniff.ts) until one reads the whole body:
 * - the first attempt without a syntax error wins, provided it is RDF: statements from the
 *   declared syntax count even when there are none (an empty Turtle file is Turtle), a sniffed
 *   syntax must yield at least one statement, an (X)HTML page must pass the RDFa rule (rdfa-rule.ts)
 *   with its RDFa and embedded JSON-LD (parse-html.ts: format `jsonld` when only the JSON-LD counts);
 * - failing that, the result is a `parse` error: from the declared syntax when it read at least
 *   one statement before its error (it did not fail immediately), else from the attempt that got
 *   furthest (most statements before its error, earliest candidate on ties), else from a declared
 *   syntax that the content also looks like, failing at its first statement;
 * - otherwise the body is `not_rdf` with format null.
 * A bound that refuses the document in any attempt (nesting too deep, a JSON-LD context refused)
 * ends it at once with that refusal's code (`too_complex`, `context_limit`), format null.
 */
export async function parseDocument(input: DocumentInput): Promise<ParseResult> {
  const { mediaType, charset } = parseContentType(input.contentType);
  const declared = formatForMediaType(mediaType);
  const encoding = bodyEncoding(input.body, charset);
  let text: string | null = null;
  const decoded = () => {
    text ??= decodeAs(input.body, encoding);
    return text;
  };
  const sniffed = sniffFormats(head(input.body, encoding) ?? decoded());
  const candidates = declared ? [declared, ...sniffed.filter((f) => f !== declared)] : sniffed;
  const failures: Attempt[] = [];
  for (const format of candidates) {
    const builder = createStatementBuilder(input.documentUrl);
    const syntaxInput = {
      get text() {
        return decoded();
      },
      body: input.body,
      encoding,
      baseIri: input.documentUrl,
      builder,
      loadContext: input.loadContext,
      maxContexts: input.maxContexts ?? CRAWL_DEFAULTS.maxContextsPerDocument,
      mediaType,
    };
    const html = format === 'rdfa' ? await readHtml(syntaxInput) : null;
    const error = html ? html.outcome : await SYNTAX_PARSERS[format](syntaxInput);
    if (error !== null && typeof error === 'object') {
      return { format: null, statements: [], error: error.code, errorMessage: `${format}: ${error.message}` };
    }
    const attempt = { format, statements: builder.statements, error };
    if (html) {
      if (html.format)
        return { format: html.format, statements: attempt.statements, error: null, errorMessage: null };
    } else if (error === null) {
      if (format === declared || attempt.statements.length > 0) {
        return { format, statements: attempt.statements, error: null, errorMessage: null };
      }
    } else failures.push(attempt);
  }
  const furthest = failures.reduce<Attempt | null>(
    (best, a) => (a.statements.length > (best?.statements.length ?? 0) ? a : best),
    null,
  );
  const declaredFailure = failures.find((a) => a.format === declared);
  const failure =
    declaredFailure && declaredFailure.statements.length > 0
      ? declaredFailure
      : (furthest ??
        (declaredFailure && sniffed.includes(declaredFailure.format) ? declaredFailure : undefined));
  if (failure) {
    return {
      format: failure.format,
      statements: failure.statements,
      error: 'parse',
      errorMessage: `${failure.format}: ${failure.error}`,
    };
  }
  return {
    format: null,
    statements: [],
    error: 'not_rdf',
    errorMessage: notRdfMessage(mediaType, candidates),
  };
}

/** Bytes decoded for sniffing: enough for SNIFF_CHARS characters in any encoding the Web uses. */
const HEAD_BYTES = 8 * SNIFF_CHARS;

/**
 * The start of the text, for sniffing, without decoding a large body whole: decoding is sequential,
 * so a prefix of the bytes gives a prefix of the text up to the last few characters, which may be
 * cut. Null when the prefix does not hold SNIFF_CHARS whole characters (then decode it all).
 */
function head(body: Uint8Array, encoding: BodyEncoding): string | null {
  if (body.length <= encoding.offset + HEAD_BYTES) return null;
  const text = decodeAs(body.subarray(0, encoding.offset + HEAD_BYTES), encoding);
  return text.length >= SNIFF_CHARS + 8 ? text : null;
}

function notRdfMessage(mediaType: string | null, tried: readonly RdfFormat[]): string {
  return `no RDF found (served as ${mediaType ?? 'no type'}; tried ${tried.join(', ')})`;
}
