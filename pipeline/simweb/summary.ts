/** A short description of a generated Web: what the demo and `/__sim/info` show. */
import { FAULT_RATES } from './faults.ts';
import { FORMATS } from './formats.ts';
import { SCENARIOS } from './scenarios.ts';
import type { GeneratedWeb, ValidatorHabit } from './web-shape.ts';

/** How one PLD uses HTTP: the ground truth the crawler's validator and HTTPS handling is tested against. */
export interface PldHabits {
  readonly pld: string;
  readonly hosts: readonly string[];
  readonly validators: ValidatorHabit;
  /** `http://` answers 301 to `https://` (only in a Web with `https`). */
  readonly httpsRedirect: boolean;
}

/** Every PLD's habits, in the Web's PLD order. */
export function pldHabits(web: GeneratedWeb): PldHabits[] {
  return web.plds.map((p) => ({
    pld: p.domain,
    hosts: p.hosts,
    validators: p.validators,
    httpsRedirect: p.httpsRedirect,
  }));
}

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
  /** Whether the Web serves HTTPS (a TLS port, the TLS scenarios, http->https redirects). */
  readonly https: boolean;
  /** PLDs that redirect `http://` to `https://`. */
  readonly httpsRedirectPlds: number;
  /** PLDs per validator habit. */
  readonly validatorPlds: Readonly<Record<ValidatorHabit, number>>;
  /** The misbehaving validator PLDs by habit (null when the Web is too small to have one). */
  readonly stale304Pld: string | null;
  readonly fickleEtagPld: string | null;
}

/** Summarises `web`. */
export function summarize(web: GeneratedWeb): WebSummary {
  const data = [...web.plds].sort((a, b) => b.docCount - a.docCount);
  const count = (habit: ValidatorHabit) => web.plds.filter((p) => p.validators === habit).length;
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
    https: web.options.https,
    httpsRedirectPlds: web.plds.filter((p) => p.httpsRedirect).length,
    validatorPlds: {
      none: count('none'),
      correct: count('correct'),
      'stale-304': count('stale-304'),
      'fickle-etag': count('fickle-etag'),
    },
    stale304Pld: web.plds.find((p) => p.validators === 'stale-304')?.domain ?? null,
    fickleEtagPld: web.plds.find((p) => p.validators === 'fickle-etag')?.domain ?? null,
  };
}
