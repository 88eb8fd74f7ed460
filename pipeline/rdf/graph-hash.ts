import { createHash } from 'node:crypto';
import type { Statement } from '../core/index.ts';
import { canonicalGraph } from './canonical-lines.ts';

/**
 * The isomorphism-invariant hash of a document's graph, for change detection: `<method>:<sha256
 * hex>` over the canonical graph's sorted, deduplicated N-Triples lines, each followed by a
 * newline. The method (`exact`, `rdfc1`, `fallback`; see CanonicalMethod) is part of the value,
 * so two hashes are only comparable when their methods agree.
 */
export async function graphHash(statements: readonly Statement[]): Promise<string> {
  const { method, lines } = await canonicalGraph(statements);
  const hash = createHash('sha256');
  for (const line of lines) hash.update(`${line}\n`);
  return `${method}:${hash.digest('hex')}`;
}
