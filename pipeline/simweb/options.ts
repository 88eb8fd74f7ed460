import { type Clock, invalidInput } from '../core/index.ts';

/**
 * How many statements data documents hold. `small`: about 16 each (quick tests, the demo);
 * `dyldo`: the heavy-tailed sizes of the Web of Data (median about 33, mean about 110, up to
 * 100,000), for DyLDO-size crawls. See doc-sizes.ts.
 */
export type DocSizeProfile = 'small' | 'dyldo';
export const DOC_SIZE_PROFILES: readonly DocSizeProfile[] = Object.freeze(['small', 'dyldo']);

/** What shapes the generated Web (pure: no server involved). */
export interface WebOptions {
  /** Everything follows from the seed: same seed, same Web, byte for byte. */
  readonly seed: number;
  /** Documents, vocabulary documents included (scenario documents are extra). */
  readonly docs: number;
  /** Pay-level domains, vocabulary publishers included (scenario PLDs are extra). */
  readonly plds: number;
  /** Multiplier of the realistic rates of faults sprinkled through the Web: 0 clean, 1 realistic. */
  readonly faults: number;
  /** Start of the simulated span: documents change only in [epochMs, epochMs + horizonMs]. */
  readonly epochMs: number;
  readonly horizonMs: number;
  readonly docSizes: DocSizeProfile;
  /**
   * Serve HTTPS beside HTTP (a TLS port, a test CA, the broken-TLS hosts) and let a share of PLDs
   * redirect `http://` to `https://`. Off by default: the Web is then exactly the HTTP-only one.
   */
  readonly https: boolean;
}

/** What the HTTP server adds to the Web it serves. */
export interface SimWebOptions extends WebOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** TLS port on 127.0.0.1 when `https`; 0 picks a free one. */
  readonly tlsPort: number;
  /** Multiplier of per-PLD service times: 0 answers at once (tests), 1 is realistic. */
  readonly latencyScale: number;
  /** The virtual clock's start (epoch ms). */
  readonly now: number;
  /** A clock to read virtual time from instead of the server's own (e.g. the demo's). */
  readonly clock: Clock | null;
}

export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 5);
const DAY = 86_400_000;

export const SIMWEB_DEFAULTS: SimWebOptions = Object.freeze({
  seed: 1,
  docs: 5000,
  plds: 300,
  faults: 1,
  epochMs: DEFAULT_EPOCH_MS,
  horizonMs: 2 * 365 * DAY,
  docSizes: 'small',
  https: false,
  port: 0,
  tlsPort: 0,
  latencyScale: 1,
  now: DEFAULT_EPOCH_MS,
  clock: null,
});

/** Largest Web generated: bounded so that the PLD table and ids stay small. */
export const MAX_DOCS = 10_000_000;

function integer(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidInput(name, `a whole number from ${min} to ${max}`, value);
  }
}

function nonNegative(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidInput(name, 'a number of at least 0', value);
  }
}

/** Validates options once, at the boundary, into a frozen, fully defaulted set. */
export function simWebOptions(input: Partial<SimWebOptions> = {}): SimWebOptions {
  const o = { ...SIMWEB_DEFAULTS, ...input };
  integer('seed', o.seed, 0, 2 ** 32 - 1);
  integer('plds', o.plds, 10, 100_000);
  integer('docs', o.docs, 2 * o.plds, MAX_DOCS);
  integer('port', o.port, 0, 65535);
  integer('tlsPort', o.tlsPort, 0, 65535);
  if (typeof o.https !== 'boolean') throw invalidInput('https', 'true or false', o.https);
  nonNegative('faults', o.faults);
  nonNegative('latencyScale', o.latencyScale);
  nonNegative('horizonMs', o.horizonMs);
  if (!DOC_SIZE_PROFILES.includes(o.docSizes))
    throw invalidInput('docSizes', DOC_SIZE_PROFILES.join(' or '), o.docSizes);
  for (const k of ['epochMs', 'now'] as const) {
    if (!Number.isFinite(o[k])) throw invalidInput(k, 'an instant in epoch milliseconds', o[k]);
  }
  return Object.freeze(o);
}
