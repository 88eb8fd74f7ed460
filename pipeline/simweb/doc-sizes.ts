/**
 * How many statements a data document holds beyond its small core (about 16 statements: types,
 * labels, a date, an address, a few links). In the `small` profile none: today's documents. In
 * the `dyldo` profile a size drawn once per document from a heavy-tailed distribution, so that a
 * 200,000-document Web holds the 16 million statements and more of a DyLDO week.
 *
 * The shape: a log-normal body (most documents tens of statements, as entity descriptions on
 * the Web of Data are) with a Pareto tail (dataset dumps, catalogues, big entity pages), capped.
 * Parameters, calibrated on the DyLDO kernel crawl's aggregate (about 16 million statements from
 * about 80,000 documents: a mean near 200 with a heavy tail) and scaled to a mean near 100 for a
 * 200,000-document week (kernel plus adaptive segment, whose far documents are smaller):
 * - body: median 16 extra statements (about 32 in all), sigma 1.1, so 90% stay under about 100;
 * - tail: 3% of documents draw from a Pareto with minimum 500 and exponent 1.2 instead (file and
 *   page sizes on the Web have Pareto tails with exponents between 1 and 1.5);
 * - cap: 100,000 statements in syntaxes that parse as streams (RDF/XML, the Turtle family,
 *   N-Triples, N-Quads); 5,000 for JSON-LD and RDFa, which are parsed whole and in practice carry
 *   small pages; and trickling documents keep their small core (64 bytes per 100 ms would take
 *   hours for a large body: the crawler's timeout would hit where the truth says it should not).
 * Measured shape on 200,000 documents: docs/simweb.md.
 */
import type { RdfFormat } from '../core/index.ts';
import type { FaultKind } from './faults.ts';
import { unit } from './random.ts';
import type { GeneratedWeb } from './web-shape.ts';

const BODY_MEDIAN = 16;
const BODY_SIGMA = 1.1;
const TAIL_SHARE = 0.03;
const TAIL_MIN = 500;
const TAIL_EXPONENT = 1.2;
/** The largest document holds about 100,000 statements: its core holds fewer than 50. */
const MAX_EXTRA = 99_950;
const MAX_EXTRA_WHOLE_PARSED = 4_950;
const WHOLE_PARSED: ReadonlySet<RdfFormat> = new Set(['jsonld', 'rdfa']);

/** Statements document `doc` (a data document in `format`) holds beyond its core. */
export function extraStatements(
  web: GeneratedWeb,
  doc: number,
  format: RdfFormat,
  fault: FaultKind | null,
): number {
  if (web.options.docSizes === 'small' || fault === 'trickle') return 0;
  const k = web.key;
  const drawn =
    unit(k, doc, 0x5170) < TAIL_SHARE
      ? TAIL_MIN * (1 - unit(k, doc, 0x5171)) ** (-1 / TAIL_EXPONENT)
      : BODY_MEDIAN *
        Math.exp(
          BODY_SIGMA *
            Math.sqrt(-2 * Math.log(1 - unit(k, doc, 0x5172))) *
            Math.cos(2 * Math.PI * unit(k, doc, 0x5173)),
        );
  return Math.min(WHOLE_PARSED.has(format) ? MAX_EXTRA_WHOLE_PARSED : MAX_EXTRA, Math.floor(drawn));
}
