/** Prefixes the serializers declare: every built-in vocabulary plus xsd. */
import { VOCABULARIES } from './vocabularies.ts';

export const PREFIXES: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(VOCABULARIES.map((v) => [v.prefix, v.namespace])),
  xsd: 'http://www.w3.org/2001/XMLSchema#',
});

/** Splits an IRI into a known namespace's prefix and local name (null when none fits). */
export function compact(iri: string): { prefix: string; local: string } | null {
  for (const [prefix, ns] of Object.entries(PREFIXES)) {
    if (iri.startsWith(ns) && /^[A-Za-z_][\w-]*$/.test(iri.slice(ns.length)))
      return { prefix, local: iri.slice(ns.length) };
  }
  return null;
}
