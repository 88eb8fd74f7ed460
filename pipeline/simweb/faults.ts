/**
 * Faults sprinkled through the generated Web, one kind (or none) per document, at realistic rates
 * scaled by the `faults` option. Flapping faults (5xx, 429) depend on the virtual day or hour, so
 * they stay a pure function of (seed, document, time) and the ground truth can state them.
 */
import { unit } from './random.ts';
import type { GeneratedWeb } from './web-shape.ts';

export type FaultKind =
  | 'status-401'
  | 'status-403'
  | 'status-404'
  | 'status-410'
  | 'flapping-429'
  | 'flapping-500'
  | 'flapping-502'
  | 'flapping-503'
  | 'wrong-type'
  | 'missing-type'
  | 'syntax-error'
  | 'redirect-chain'
  | 'redirect-loop'
  | 'latin1'
  | 'soft-404-html'
  | 'hang'
  | 'trickle'
  | 'reset';

/** Share of documents with each fault at `faults: 1`. */
export const FAULT_RATES: Readonly<Record<FaultKind, number>> = Object.freeze({
  'status-401': 0.003,
  'status-403': 0.005,
  'status-404': 0.02,
  'status-410': 0.003,
  'flapping-429': 0.005,
  'flapping-500': 0.01,
  'flapping-502': 0.003,
  'flapping-503': 0.01,
  'wrong-type': 0.02,
  'missing-type': 0.01,
  'syntax-error': 0.01,
  'redirect-chain': 0.02,
  'redirect-loop': 0.003,
  latin1: 0.003,
  'soft-404-html': 0.01,
  hang: 0.001,
  trickle: 0.002,
  reset: 0.002,
});

const KINDS = Object.keys(FAULT_RATES) as FaultKind[];
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** The fault of a document (null for most). Stable core documents (first of each PLD, vocabularies) have none. */
export function docFault(web: GeneratedWeb, doc: number, stable: boolean): FaultKind | null {
  if (stable || web.options.faults === 0) return null;
  let x = unit(web.key, doc, 0xfa);
  const scale = web.options.faults;
  for (const k of KINDS) {
    x -= FAULT_RATES[k] * scale;
    if (x < 0) return k;
  }
  return null;
}

/** The status a flapping fault answers at `t`, or null when the document answers normally then. */
export function flappingStatus(web: GeneratedWeb, doc: number, fault: FaultKind, t: number): number | null {
  if (!fault.startsWith('flapping-')) return null;
  const status = Number(fault.slice(9));
  // 5xx come and go by the day, 429 by the hour
  const slot = status === 429 ? Math.floor(t / HOUR) : Math.floor(t / DAY);
  return unit(web.key, doc, slot, 0xfb) < 0.5 ? status : null;
}
