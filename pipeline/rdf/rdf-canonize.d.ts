/** The part of rdf-canonize (which ships no types) that graph hashing uses. */
declare module 'rdf-canonize' {
  interface CanonizeOptions {
    algorithm: 'RDFC-1.0';
    maxWorkFactor?: number;
    maxDeepIterations?: number;
    signal?: AbortSignal;
    canonicalIdMap?: Map<string, string>;
  }
  const rdfCanonize: {
    canonize(dataset: readonly object[], options: CanonizeOptions): Promise<string>;
  };
  export default rdfCanonize;
}
