import jsonld from 'jsonld';
import type { RemoteDocument } from 'jsonld/jsonld-spec.d.ts';
import { ObservatoryError } from '../core/index.ts';
import { RDF_DIR_LANG_STRING, type RdfJsQuad, type RdfJsTerm } from './rdf-terms.ts';
import type { Refusal, SyntaxInput } from './syntax-parser.ts';

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
 * the document (a `parse` error), it does not crash or fetch. jsonld asks once per distinct URL
 * per document (its cache outlives a document only for contexts tagged static, and ours are not),
 * so counting the URLs asked for counts the document's contexts, nested ones included.
 * A context past `maxContexts`, or one the loader refuses, is remembered as the refusal.
 */
function documentLoader({ loadContext, maxContexts }: SyntaxInput) {
  const named = new Set<string>();
  let refusal: Refusal | null = null;
  const load = async (url: string) => {
    named.add(url);
    if (named.size > maxContexts) {
      refusal ??= {
        code: 'context_limit',
        message: `the document names more than ${maxContexts} remote JSON-LD contexts; ${url} was refused`,
      };
      throw new Error(refusal.message);
    }
    if (!loadContext) throw new Error(`remote JSON-LD context ${url} needs a context loader, none was given`);
    let text: string;
    try {
      text = await loadContext(url);
    } catch (error) {
      if (error instanceof ObservatoryError && error.code === 'context_limit') {
        refusal ??= { code: 'context_limit', message: error.message };
      }
      throw error;
    }
    return {
      contextUrl: undefined,
      documentUrl: url,
      document: JSON.parse(text) as RemoteDocument['document'],
    };
  };
  return { load, refusal: () => refusal };
}

/**
 * The datatypes of JSON-LD 1.1's `rdfDirection: 'i18n-datatype'` (JSON-LD 1.1 API, 8.6.3): a value
 * with `@language` and `@direction` becomes a literal of `https://www.w3.org/ns/i18n#<lang>_<dir>`.
 * Without that option jsonld.js drops `@direction`; with it, such a literal is read back as the RDF 1.2
 * directional literal it means (`"…"@en--rtl`). A direction without a language has no RDF 1.2 form
 * and keeps the i18n datatype (nothing dropped).
 */
const I18N = 'https://www.w3.org/ns/i18n#';
const DIRECTIONAL = /^(.+)_(ltr|rtl)$/;
const DIR_LANG_STRING_NODE = { termType: 'NamedNode', value: RDF_DIR_LANG_STRING };

/** An i18n-datatype literal with a language as a directional literal; any other term as it is. */
function directional(term: RdfJsTerm): RdfJsTerm {
  const datatype = term.datatype?.value;
  if (term.termType !== 'Literal' || !datatype?.startsWith(I18N)) return term;
  const m = DIRECTIONAL.exec(datatype.slice(I18N.length));
  if (!m) return term;
  return {
    termType: 'Literal',
    value: term.value,
    language: m[1],
    direction: m[2],
    datatype: DIR_LANG_STRING_NODE,
  };
}

/** Whether a term from jsonld.toRDF is a term at all: an object whose value is a string. */
function isTerm(term: RdfJsTerm | null | undefined): boolean {
  return typeof term === 'object' && term !== null && typeof term.value === 'string';
}

/**
 * What jsonld.js (9.0) returns that is not a quad, checked before anything is added:
 * - a literal whose datatype is not one IRI (an array: `"@type": ["ex:a", "ex:b"]` in a value
 *   object) is the JSON-LD error `invalid typed value` that jsonld.js does not raise (W3C toRdf
 *   test ter54, a negative evaluation test): the document is refused as invalid JSON-LD, like the
 *   errors jsonld.js does raise;
 * - a quad with a missing term (`object: null` for a list item whose IRI cannot be made absolute,
 *   toRdf test tli14, whose expected output leaves that item out) is dropped, the others kept.
 * A literal of an i18n datatype with a language is made the directional literal it stands for.
 * Returns the refusal's message, or the quads to add.
 */
function wellFormed(quads: readonly RdfJsQuad[]): string | RdfJsQuad[] {
  const kept: RdfJsQuad[] = [];
  for (const quad of quads) {
    const { subject, predicate, object, graph } = quad;
    if (isTerm(object) && object.termType === 'Literal' && typeof object.datatype?.value !== 'string') {
      return `invalid typed value: the literal "${object.value}" has the datatype ${JSON.stringify(object.datatype?.value)}, not one IRI`;
    }
    if (!(isTerm(subject) && isTerm(predicate) && isTerm(object) && isTerm(graph))) continue;
    const literal = directional(object);
    kept.push(literal === object ? quad : { ...quad, object: literal });
  }
  return kept;
}

/**
 * Converts one JSON-LD text into `add`: jsonld converts a document as a whole, so an error (bad
 * JSON, invalid JSON-LD, an unloadable context) adds no statement; a refused context is a refusal.
 */
async function convert(
  text: string,
  input: SyntaxInput,
  base: string,
  add: (quad: RdfJsQuad) => void,
): Promise<string | Refusal | null> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  if (document === null || typeof document !== 'object') return 'JSON text is not an object or array';
  if (jsonDepth(text) > MAX_DEPTH)
    return { code: 'too_complex', message: `JSON nested deeper than ${MAX_DEPTH} levels` };
  const loader = documentLoader(input);
  try {
    const quads = wellFormed(
      (await jsonld.toRDF(
        document as jsonld.JsonLdDocument,
        {
          base,
          documentLoader: loader.load,
          // keeps @direction (see I18N), which jsonld.js drops otherwise
          rdfDirection: 'i18n-datatype',
        } as jsonld.Options.ToRdf,
      )) as unknown as RdfJsQuad[],
    );
    if (typeof quads === 'string') return quads;
    for (const quad of quads) add(quad);
    return null;
  } catch (error) {
    const refusal = loader.refusal();
    if (refusal) return refusal;
    const e = error as Error & { details?: { cause?: Error } };
    return e.details?.cause ? `${e.message}: ${e.details.cause.message}` : e.message || String(error);
  }
}

/** JSON-LD through jsonld.toRDF (see convert). */
export function parseJsonLd(input: SyntaxInput): Promise<string | Refusal | null> {
  return convert(input.text, input, input.baseIri, (quad) => input.builder.add(quad));
}

/** The term with its blank-node label moved into `scope`, so that labels of separate conversions never meet. */
function scoped(term: RdfJsTerm, scope: string): RdfJsTerm {
  return term.termType === 'BlankNode' ? { ...term, value: `${scope}.${term.value}` } : term;
}

/** What the JSON-LD script elements of a page gave. */
export interface EmbeddedJsonLdResult {
  /** Script elements whose statements were added. */
  readonly read: number;
  /** Why each of the others was skipped (not JSON, not valid JSON-LD, a context that failed). */
  readonly skipped: readonly string[];
}

/**
 * The JSON-LD script elements of an HTML page into the page's builder, each converted on its own
 * (a broken block, common on the Web, costs only itself) with its blank nodes apart from the
 * RDFa's and the other blocks'. A refused context or nesting bound refuses the whole page, as in
 * a JSON-LD document.
 */
export async function addEmbeddedJsonLd(
  input: SyntaxInput,
  scripts: readonly string[],
  base: string,
): Promise<EmbeddedJsonLdResult | Refusal> {
  let read = 0;
  const skipped: string[] = [];
  for (const [i, script] of scripts.entries()) {
    const scope = `jsonld${i}`;
    const quads: RdfJsQuad[] = [];
    const outcome = await convert(script, input, base, (q) => quads.push(q));
    if (outcome !== null && typeof outcome === 'object') return outcome;
    if (outcome !== null) {
      skipped.push(`script ${i + 1}: ${outcome}`);
      continue;
    }
    read++;
    for (const q of quads) {
      input.builder.add({
        subject: scoped(q.subject, scope),
        predicate: q.predicate,
        object: scoped(q.object, scope),
        graph: scoped(q.graph, scope),
      });
    }
  }
  return { read, skipped };
}
