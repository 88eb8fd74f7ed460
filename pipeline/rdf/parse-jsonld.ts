import jsonld from 'jsonld';
import type { RemoteDocument } from 'jsonld/jsonld-spec.d.ts';
import type { RdfJsQuad } from './rdf-terms.ts';
import type { ContextLoader, SyntaxInput } from './syntax-parser.ts';

/** Nesting deeper than this is refused before jsonld's recursive algorithms could overflow the stack. */
const MAX_DEPTH = 256;

/** The deepest nesting of arrays and objects in a JSON text, counted without parsing it. */
export function jsonDepth(text: string, stopAbove = MAX_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/**
 * jsonld fetches remote contexts through its document loader; ours only ever asks the injected
 * loader, so jsonld itself never touches the network. Without a loader a remote context fails
 * the document (a `parse` error), it does not crash or fetch.
 */
function documentLoader(loadContext: ContextLoader | undefined) {
  return async (url: string) => {
    if (!loadContext) throw new Error(`remote JSON-LD context ${url} needs a context loader, none was given`);
    return {
      contextUrl: undefined,
      documentUrl: url,
      document: (await loadContext(url)) as RemoteDocument['document'],
    };
  };
}

/**
 * JSON-LD through jsonld.toRDF. jsonld converts a document as a whole, so an error (bad JSON,
 * invalid JSON-LD, an unloadable context) keeps no statements.
 */
export async function parseJsonLd({
  text,
  baseIri,
  builder,
  loadContext,
}: SyntaxInput): Promise<string | null> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  if (document === null || typeof document !== 'object') return 'JSON text is not an object or array';
  if (jsonDepth(text) > MAX_DEPTH) return `JSON nested deeper than ${MAX_DEPTH} levels`;
  try {
    const quads = (await jsonld.toRDF(document as jsonld.JsonLdDocument, {
      base: baseIri,
      documentLoader: documentLoader(loadContext),
    })) as unknown as RdfJsQuad[];
    for (const quad of quads) builder.add(quad);
    return null;
  } catch (error) {
    const e = error as Error & { details?: { cause?: Error } };
    return e.details?.cause ? `${e.message}: ${e.details.cause.message}` : e.message || String(error);
  }
}
