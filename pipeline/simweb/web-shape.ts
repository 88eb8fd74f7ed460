/**
 * The shape of the simulated Web: which PLDs exist, their hosts, how many documents each holds
 * (a power law: most PLDs publish one document, a few publish thousands) and how each publishes
 * (URI style, syntax, content negotiation, compression, robots.txt, service time).
 * Only this small table is held in memory; documents are computed from it on demand.
 */
import type { RdfFormat } from '../core/index.ts';
import { payLevelDomain } from '../core/index.ts';
import { FORMAT_SHARES, FORMATS } from './formats.ts';
import { FAMOUS_DATA_HOSTS, SUBDOMAIN_LABELS, syntheticHost } from './hostnames.ts';
import { simWebOptions, type WebOptions } from './options.ts';
import { hash32, hashString, pickWeighted, randomStream, unit } from './random.ts';
import type { RobotsVariant } from './robots.ts';
import { VOCABULARIES, VOCABULARY_HOSTS, type Vocabulary } from './vocabularies.ts';

/** How a PLD names its documents. `see-other`: `/resource/X` answers 303 to `/data/X` (DBpedia style). */
export type UriStyle = 'see-other' | 'direct' | 'hash';
/** `honour` serves the best syntax for Accept, `ignore` always its own, `strict` answers 406 when Accept excludes it. */
export type ConnegPolicy = 'honour' | 'ignore' | 'strict';
/**
 * How a PLD uses HTTP validators. `none`: no ETag, no Last-Modified, always 200. `correct`: both
 * follow the content, 304 when a conditional GET's validator still holds. `stale-304`: 304 to every
 * conditional GET, even after the content changed. `fickle-etag`: an ETag and Last-Modified that
 * change with every moment of the virtual clock, so a conditional GET never gets a 304.
 */
export type ValidatorHabit = 'none' | 'correct' | 'stale-304' | 'fickle-etag';

/** Share of data PLDs that redirect `http://` to `https://` when the Web serves HTTPS (dbpedia.org and www.wikidata.org always do). */
export const HTTPS_REDIRECT_SHARE = 0.3;
/** Documents a PLD needs at least to be picked as one of the misbehaving validator PLDs (its first three never change). */
const MISBEHAVING_MIN_DOCS = 10;

export interface SimPld {
  readonly index: number;
  /** The pay-level domain (Public Suffix List), e.g. `example.ac.uk`. */
  readonly domain: string;
  /** Hosts of this PLD; documents are spread over them. */
  readonly hosts: readonly string[];
  readonly kind: 'vocabulary' | 'data';
  /** Documents of this PLD have ids docStart .. docStart + docCount - 1. */
  readonly docStart: number;
  readonly docCount: number;
  readonly style: UriStyle;
  /** First path segment of direct and hash URIs (`/id/...`, `/person/...`). */
  readonly section: string;
  readonly format: RdfFormat;
  readonly conneg: ConnegPolicy;
  /** Compresses (gzip, deflate or br) when Accept-Encoding allows. */
  readonly compress: boolean;
  /** Whether it sends ETag and Last-Modified and answers conditional GETs, and how well. */
  readonly validators: ValidatorHabit;
  /** Answers every `http://` request with 301 to the same `https://` URL (only in a Web with `https`). */
  readonly httpsRedirect: boolean;
  readonly robots: RobotsVariant;
  /** Median service time in milliseconds before latency scaling. */
  readonly latencyMs: number;
  readonly vocabularies: readonly Vocabulary[];
}

export interface GeneratedWeb {
  readonly options: WebOptions;
  /** The seed folded into every per-document hash. */
  readonly key: number;
  readonly plds: readonly SimPld[];
  readonly docCount: number;
  /** Host name -> PLD. */
  readonly hostIndex: ReadonlyMap<string, SimPld>;
  /** Cumulative document counts of data PLDs, for picking link targets in proportion to size. */
  readonly cumulative: Float64Array;
}

/** Share of PLDs with exactly one document on the measured Web of Data. */
export const SINGLE_DOCUMENT_SHARE = 0.58;
const ZIPF_EXPONENT = 1.1;
const SECTIONS = ['id', 'data', 'resource', 'person', 'place', 'dataset', 'item', 'page'];
const ROBOTS_WEIGHTS: ReadonlyArray<[RobotsVariant, number, boolean]> = [
  // [variant, weight, is it a fault (scaled by the faults option)]
  ['none', 55, false],
  ['allow', 25, false],
  ['disallow-paths', 8, true],
  ['crawl-delay', 4, true],
  ['other-token', 2, true],
  ['token-block', 0.5, true],
  ['server-error', 0.7, true],
  ['unavailable', 0.5, true],
  ['slow', 1, true],
  ['redirect', 1.5, true],
  ['large', 0.3, true],
];

/** Document counts per data PLD: a tail of one-document PLDs, the rest Zipf-distributed by rank. */
function dataSizes(dataPlds: number, dataDocs: number, singles: number): number[] {
  const multi = dataPlds - singles;
  const rest = dataDocs - singles;
  const weights = Array.from({ length: multi }, (_, r) => 1 / (r + 1) ** ZIPF_EXPONENT);
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(2, Math.floor((w / total) * rest)));
  let diff = rest - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; diff !== 0; i = (i + 1) % multi) {
    if (diff > 0) {
      sizes[i]++;
      diff--;
    } else if (sizes[i] > 2) {
      sizes[i]--;
      diff++;
    }
  }
  return [...sizes, ...new Array(singles).fill(1)];
}

function hostsFor(key: number, index: number, main: string, size: number): string[] {
  const r = randomStream(key, index, 0x5d);
  const domain = payLevelDomain(main);
  // a few big publishers spread documents over many subdomains (language editions, datasets)
  const many = main === 'dbpedia.org' || main === 'bio2rdf.org' || (size >= 20 && r.next() < 0.08);
  if (!many) return [main];
  const n = Math.min(SUBDOMAIN_LABELS.length, 4 + r.int(Math.min(26, Math.ceil(size / 10))));
  const labels = [...SUBDOMAIN_LABELS].sort((a, b) => a.localeCompare(b)).slice(0, n);
  return [main, ...labels.map((l) => `${l}.${domain}`)];
}

function robotsFor(u: number, faults: number): RobotsVariant {
  const weights = ROBOTS_WEIGHTS.map(([, w, fault]) => (fault ? w * faults : w));
  return ROBOTS_WEIGHTS[pickWeighted(weights, u)][0];
}

/** Generates the shape of a simulated Web; pure and cheap (no document is built). */
export function generateWeb(input: Partial<WebOptions> = {}): GeneratedWeb {
  const options = simWebOptions(input);
  const key = hashString(`simweb:${options.seed}`);
  const plds: SimPld[] = [];
  const hostIndex = new Map<string, SimPld>();
  const add = (p: SimPld) => {
    plds.push(Object.freeze(p));
    for (const h of p.hosts) hostIndex.set(h, p);
  };
  let docStart = 0;
  const byVocabHost = VOCABULARY_HOSTS.map((h) => VOCABULARIES.filter((v) => v.host === h));
  for (const vocabs of byVocabHost) {
    const host = vocabs[0].host;
    add({
      index: plds.length,
      domain: payLevelDomain(host),
      hosts: [host],
      kind: 'vocabulary',
      docStart,
      docCount: vocabs.length,
      style: 'direct',
      section: '',
      format: vocabs[0].format,
      conneg: 'honour',
      compress: true,
      validators: 'correct',
      httpsRedirect: false,
      robots: 'allow',
      latencyMs: 30,
      vocabularies: vocabs,
    });
    docStart += vocabs.length;
  }
  const dataPlds = options.plds - plds.length;
  const singlesWanted =
    Math.round(SINGLE_DOCUMENT_SHARE * options.plds) - plds.filter((p) => p.docCount === 1).length;
  const singles = Math.max(0, Math.min(dataPlds - 1, singlesWanted));
  const sizes = dataSizes(dataPlds, options.docs - docStart, singles);
  const taken = new Set<string>([...VOCABULARY_HOSTS, ...FAMOUS_DATA_HOSTS].map(payLevelDomain));
  const data: Array<SimPld & { validators: ValidatorHabit }> = [];
  for (let i = 0; i < dataPlds; i++) {
    const index = plds.length + i;
    const r = randomStream(key, index, 0x91d);
    const main = i < FAMOUS_DATA_HOSTS.length ? FAMOUS_DATA_HOSTS[i] : syntheticHost(key, index, taken);
    const style: UriStyle =
      i === 0 ? 'see-other' : (['see-other', 'direct', 'direct', 'hash'] as const)[r.int(4)];
    data.push({
      index,
      domain: payLevelDomain(main),
      hosts: hostsFor(key, index, main, sizes[i]),
      kind: 'data',
      docStart,
      docCount: sizes[i],
      style,
      section: r.pick(SECTIONS),
      format: i === 0 ? 'rdfxml' : FORMATS[pickWeighted(FORMAT_SHARES, r.next())].format,
      conneg: (['honour', 'honour', 'honour', 'ignore', 'ignore', 'strict'] as const)[r.int(6)],
      compress: r.next() < 0.4,
      validators: r.next() < 0.5 ? 'correct' : 'none',
      // a hash of its own, not the PLD's stream: a Web without https keeps every other draw
      httpsRedirect: options.https && (i < 2 || unit(key, index, 0x7715) < HTTPS_REDIRECT_SHARE),
      robots: robotsFor(r.next(), options.faults),
      // log-normal: median 60 ms, a long tail of slow publishers
      latencyMs: Math.round(
        60 * Math.exp(1.1 * Math.sqrt(-2 * Math.log(1 - r.next())) * Math.cos(2 * Math.PI * r.next())),
      ),
      vocabularies: [],
    });
    docStart += sizes[i];
  }
  misbehave(key, data);
  for (const p of data) add(p);
  const cumulative = new Float64Array(dataPlds);
  let sum = 0;
  for (let i = 0; i < dataPlds; i++) {
    sum += sizes[i];
    cumulative[i] = sum;
  }
  return Object.freeze({
    options,
    key,
    plds: Object.freeze(plds),
    docCount: docStart,
    hostIndex,
    cumulative,
  });
}

/** Picks the two misbehaving validator PLDs among those that send validators, by a hash of the seed. */
function misbehave(
  key: number,
  data: Array<{ index: number; docCount: number; validators: ValidatorHabit }>,
): void {
  const picked = data
    .filter((p) => p.validators === 'correct' && p.docCount >= MISBEHAVING_MIN_DOCS)
    .sort((a, b) => hash32(key, a.index, 0x304) - hash32(key, b.index, 0x304));
  if (picked[0]) picked[0].validators = 'stale-304';
  if (picked[1]) picked[1].validators = 'fickle-etag';
}

/** The PLD holding document `doc` (binary search over the contiguous id ranges). */
export function pldOfDoc(web: GeneratedWeb, doc: number): SimPld {
  let lo = 0;
  let hi = web.plds.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (web.plds[mid].docStart <= doc) lo = mid;
    else hi = mid - 1;
  }
  return web.plds[lo];
}

/** The first data PLD's index in `web.plds` (vocabulary PLDs come first). */
export function firstDataPld(web: GeneratedWeb): number {
  return web.plds.length - web.cumulative.length;
}

/** A data PLD drawn in proportion to its size (preferential attachment) from a uniform `u`. */
export function pldBySize(web: GeneratedWeb, u: number): SimPld {
  const c = web.cumulative;
  const x = u * c[c.length - 1];
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (c[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return web.plds[firstDataPld(web) + lo];
}
