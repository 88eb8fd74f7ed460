/**
 * The few IRIs the rdf stage names, and the structural shape of the RDF/JS terms and quads that
 * every parser library here emits (n3, jsonld, rdfxml-streaming-parser, rdfa-streaming-parser).
 * Structural, so that no parser's own classes leak out of its adapter.
 */
export const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
export const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
export const RDF_DIR_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';

export interface RdfJsTerm {
  readonly termType: string;
  readonly value: string;
  readonly language?: string;
  /** RDF 1.2 base direction of a literal (`ltr`, `rtl`), where the parser reads RDF 1.2. */
  readonly direction?: string;
  readonly datatype?: { readonly value: string };
  /** The parts of an RDF 1.2 triple term (termType `Quad`; its graph is the default graph). */
  readonly subject?: RdfJsTerm;
  readonly predicate?: RdfJsTerm;
  readonly object?: RdfJsTerm;
}

export interface RdfJsQuad {
  /** `Quad` where the parser makes RDF/JS quads that can also be triple terms. */
  readonly termType?: string;
  readonly value?: string;
  readonly subject: RdfJsTerm;
  readonly predicate: RdfJsTerm;
  readonly object: RdfJsTerm;
  readonly graph: RdfJsTerm;
}
