/** A short description of a generated Web: what the demo and `/__sim/info` show. */
import { FAULT_RATES } from './faults.ts';
import { FORMATS } from './formats.ts';
import { SCENARIOS } from './scenarios.ts';
import type { GeneratedWeb } from './web-shape.ts';

export interface WebSummary {
  readonly seed: number;
  readonly plds: number;
  readonly hosts: number;
  readonly documents: number;
  /** The document size profile (`small` or `dyldo`). */
  readonly docSizes: string;
  readonly singleDocumentPlds: number;
  readonly largestPlds: ReadonlyArray<{ pld: string; documents: number; hosts: number }>;
  readonly formats: readonly string[];
  readonly faultKinds: readonly string[];
  readonly faults: number;
  readonly scenarios: number;
}

/** Summarises `web`. */
export function summarize(web: GeneratedWeb): WebSummary {
  const data = [...web.plds].sort((a, b) => b.docCount - a.docCount);
  return {
    seed: web.options.seed,
    plds: web.plds.length,
    hosts: web.hostIndex.size,
    documents: web.docCount,
    docSizes: web.options.docSizes,
    singleDocumentPlds: web.plds.filter((p) => p.docCount === 1).length,
    largestPlds: data
      .slice(0, 5)
      .map((p) => ({ pld: p.domain, documents: p.docCount, hosts: p.hosts.length })),
    formats: FORMATS.map((f) => f.format),
    faultKinds: Object.keys(FAULT_RATES),
    faults: web.options.faults,
    scenarios: Object.keys(SCENARIOS).length,
  };
}
