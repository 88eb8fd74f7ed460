/**
 * The scenario catalogue: fixed URLs on dedicated PLDs, one per behaviour of the real Web, with
 * what a correct crawler (our User-Agent, an Accept listing every RDF syntax, the default limits
 * of CRAWL_DEFAULTS) must see. Crawler tests iterate SCENARIOS table-driven; the server answers
 * them through scenarioReply. Counts are computed from the bodies served, not written by hand.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { ErrorCode, RdfFormat } from '../core/index.ts';
import { negotiate } from './conneg.ts';
import { FORMATS } from './formats.ts';
import { accidentalPage } from './rdfa-writer.ts';
import { type Reply, redirectReply, statusReply, type Transport } from './reply.ts';
import { type RobotsVariant, robotsAllows } from './robots.ts';
import {
  BROKEN_PREFIX_STATEMENTS,
  brokenBody,
  brotliBombBody,
  FIXTURE_STATEMENTS,
  fixtureBody,
  gzipBombBody,
  invalidIriBody,
  oversizedBody,
} from './scenario-content.ts';
import { contentTypeOf } from './serialize.ts';
import { TLS_OK_HOST, TLS_TROUBLE_HOSTS, TLS_UPGRADE_HOST, type TlsTrouble } from './tls-lab.ts';

export type ScenarioGroup =
  | 'status'
  | 'redirect'
  | 'conneg'
  | 'format'
  | 'encoding'
  | 'transport'
  | 'robots'
  | 'tls';

/** What a crawler must see when it fetches a scenario URL. */
export interface ScenarioExpectation {
  /**
   * HTTP status of the last response whose headers arrived (a failing redirect's 3xx, a 200 whose body
   * then failed); null when none arrives (hang, reset before the response) or none is sent (robots).
   */
  readonly status: number | null;
  /** The error code from pipeline/core/errors.ts the crawler records; null for success. */
  readonly error: ErrorCode | null;
  /** Syntax of the body when it is RDF (also for parse errors); null when the body was not read whole. */
  readonly format: RdfFormat | null;
  /** Exact statements in the body (for `parse`: statements before the error); null when not RDF. */
  readonly statements: number | null;
  /** URL whose response carries the body; for redirect errors, the last URL requested (where the fetch stopped). */
  readonly finalUrl: string;
  /** Redirect hops followed to finalUrl (for loops and over-long chains: hops the server's path has). */
  readonly redirects: number;
}

export interface Scenario {
  readonly name: string;
  readonly group: ScenarioGroup;
  readonly url: string;
  readonly description: string;
  /** The Accept header to send to see this answer (absent: any RDF Accept). */
  readonly accept?: string;
  /** The Accept-Encoding to send (absent: any). */
  readonly acceptEncoding?: string;
  readonly expect: ScenarioExpectation;
}

/** A request as a scenario sees it. */
export interface ScenarioRequest {
  readonly accept: string | undefined;
  /** The virtual time of the request (epoch ms): a scenario may answer differently over time. */
  readonly at: number;
}

interface Entry {
  readonly scenario: Scenario;
  readonly reply: (req: ScenarioRequest) => Reply;
}

const entries: Entry[] = [];
/** The TLS scenarios: a catalogue of their own, since they need a Web started with `https`. */
const tlsEntries: Entry[] = [];
/** `host + path` -> reply, for URLs that are not themselves catalogue entries (redirect targets). */
const extraRoutes = new Map<string, (req: ScenarioRequest) => Reply>();

function rdf(
  format: RdfFormat,
  body: () => Buffer,
  over: Partial<Reply> = {},
  statements = FIXTURE_STATEMENTS,
): Reply {
  return {
    status: 200,
    headers: { 'content-type': contentTypeOf(format) },
    body,
    transport: 'normal',
    compress: false,
    delayMs: 0,
    outcome: { format, statements, error: null },
    ...over,
  };
}

function expectRdf(
  url: string,
  format: RdfFormat,
  more: Partial<ScenarioExpectation> = {},
): ScenarioExpectation {
  return {
    status: 200,
    error: null,
    format,
    statements: FIXTURE_STATEMENTS,
    finalUrl: url,
    redirects: 0,
    ...more,
  };
}

function expectError(
  url: string,
  status: number | null,
  error: ErrorCode,
  more: Partial<ScenarioExpectation> = {},
): ScenarioExpectation {
  return { status, error, format: null, statements: null, finalUrl: url, redirects: 0, ...more };
}

function add(
  name: string,
  group: ScenarioGroup,
  url: string,
  description: string,
  expect: ScenarioExpectation,
  reply: (req: ScenarioRequest) => Reply,
  extra: { accept?: string; acceptEncoding?: string } = {},
): void {
  const scenario = Object.freeze({ name, group, url, description, expect, ...extra });
  (group === 'tls' ? tlsEntries : entries).push({ scenario, reply });
}

function route(url: string, reply: (req: ScenarioRequest) => Reply): void {
  const u = new URL(url);
  extraRoutes.set(u.host + u.pathname + u.search, reply);
}

const turtle = (url: string) => () => rdf('turtle', () => fixtureBody(url, 'turtle'));

// --- status codes -------------------------------------------------------------------------------
const STATUS = 'http://data.status-lab.org';
add(
  'ok',
  'status',
  `${STATUS}/ok`,
  'A plain 200 with Turtle: the control case.',
  expectRdf(`${STATUS}/ok`, 'turtle'),
  turtle(`${STATUS}/ok`),
);
for (const [status, retryAfter] of [
  [401],
  [403],
  [404],
  [410],
  [429, '120'],
  [500],
  [502],
  [503, '3600'],
] as const) {
  const url = `${STATUS}/status/${status}`;
  const headers: Record<string, string> = retryAfter ? { 'retry-after': retryAfter } : {};
  if (status === 401) headers['www-authenticate'] = 'Basic realm="members"';
  add(
    `status-${status}`,
    'status',
    url,
    `Answers ${status}${retryAfter ? ` with Retry-After: ${retryAfter}` : ''}.`,
    expectError(url, status, status === 429 ? 'http_429' : status >= 500 ? 'http_5xx' : 'http_4xx'),
    () => statusReply(status, headers, `${status}\n`),
  );
}

const COMEBACK = `${STATUS}/comeback`;
const WEEK_MS = 7 * 86_400_000;
add(
  'comeback',
  'status',
  COMEBACK,
  'Disappears and returns: 404 in odd weeks of the virtual clock (counted from the Unix epoch, so from Thursdays 00:00 UTC), Turtle in even ones (as at the default clock).',
  expectRdf(COMEBACK, 'turtle'),
  (req) =>
    Math.floor(req.at / WEEK_MS) % 2 === 1 ? statusReply(404, {}, 'Not found\n') : turtle(COMEBACK)(),
);

// --- redirects ----------------------------------------------------------------------------------
const RED = 'http://www.redirect-lab.net';
const BERLIN = `${RED}/data/Berlin`;
route(BERLIN, turtle(BERLIN));
add(
  'see-other',
  'redirect',
  `${RED}/resource/Berlin`,
  'DBpedia style: 303 See Other from /resource/X to /data/X.',
  expectRdf(BERLIN, 'turtle', { redirects: 1 }),
  () => redirectReply(303, BERLIN),
);
for (const status of [301, 302, 307, 308]) {
  add(
    `redirect-${status}`,
    'redirect',
    `${RED}/old/${status}`,
    `A single ${status} to the document.`,
    expectRdf(BERLIN, 'turtle', { redirects: 1 }),
    () => redirectReply(status, BERLIN),
  );
}
add(
  'redirect-relative',
  'redirect',
  `${RED}/relative/here`,
  'A 302 whose Location is relative (../data/Berlin).',
  expectRdf(BERLIN, 'turtle', { redirects: 1 }),
  () => redirectReply(302, '../data/Berlin'),
);
add(
  'redirect-chain',
  'redirect',
  `${RED}/chain/1`,
  'Three hops (301, 302 to another PLD, 307 back): politeness applies to each hop.',
  expectRdf(BERLIN, 'turtle', { redirects: 3 }),
  () => redirectReply(301, `${RED}/chain/2`),
);
route(`${RED}/chain/2`, () => redirectReply(302, 'http://data.redirect-lab.org/chain/3'));
route('http://data.redirect-lab.org/chain/3', () => redirectReply(307, BERLIN));
add(
  'redirect-too-long',
  'redirect',
  `${RED}/long/0`,
  'Seven hops: one more than five redirects allows.',
  expectError(`${RED}/long/5`, 302, 'redirect_limit', { redirects: 7 }),
  () => redirectReply(301, `${RED}/long/1`),
);
for (let i = 1; i < 7; i++)
  route(`${RED}/long/${i}`, () => redirectReply(302, i === 6 ? BERLIN : `${RED}/long/${i + 1}`));
add(
  'redirect-loop',
  'redirect',
  `${RED}/loop/a`,
  'a -> b -> a.',
  expectError(`${RED}/loop/b`, 302, 'redirect_loop', { redirects: 2 }),
  () => redirectReply(302, `${RED}/loop/b`),
);
route(`${RED}/loop/b`, () => redirectReply(302, `${RED}/loop/a`));
add(
  'redirect-self',
  'redirect',
  `${RED}/loop/self`,
  'A 301 to itself.',
  expectError(`${RED}/loop/self`, 301, 'redirect_loop', { redirects: 1 }),
  () => redirectReply(301, `${RED}/loop/self`),
);
add(
  'redirect-no-location',
  'redirect',
  `${RED}/broken/no-location`,
  'A 302 without a Location header.',
  expectError(`${RED}/broken/no-location`, 302, 'redirect_invalid'),
  () => statusReply(302, {}, 'Moved somewhere\n'),
);
const CL = `${RED}/doc/content-location`;
add(
  'content-location',
  'redirect',
  CL,
  'A 200 with Content-Location naming the variant served (no redirect).',
  expectRdf(CL, 'turtle'),
  () =>
    rdf('turtle', () => fixtureBody(CL, 'turtle'), {
      headers: { 'content-type': contentTypeOf('turtle'), 'content-location': `${CL}.ttl` },
    }),
);
route(`${CL}.ttl`, turtle(CL));

// --- content negotiation ------------------------------------------------------------------------
for (const [policy, native] of [
  ['honour', 'rdfxml'],
  ['ignore', 'rdfxml'],
  ['strict', 'rdfxml'],
] as const) {
  const url = `http://${policy}.conneg-lab.org/thing`;
  const reply = (req: ScenarioRequest) => {
    const f = negotiate(policy, native, req.accept);
    if (f === null) return statusReply(406, {}, 'Not Acceptable\n');
    return rdf(f, () => fixtureBody(url, f), {
      headers: { 'content-type': contentTypeOf(f), vary: 'Accept' },
    });
  };
  const what = {
    honour: 'serves the syntax Accept prefers',
    ignore: 'always serves RDF/XML',
    strict: 'serves only RDF/XML',
  }[policy];
  add(
    `conneg-${policy}`,
    'conneg',
    url,
    `Content negotiation: ${what}.`,
    expectRdf(url, policy === 'honour' ? 'turtle' : native),
    reply,
    { accept: 'text/turtle, application/rdf+xml;q=0.9' },
  );
  if (policy === 'strict') {
    add(
      'conneg-406',
      'conneg',
      url,
      'Answers 406 when Accept excludes RDF/XML.',
      expectError(url, 406, 'http_4xx'),
      reply,
      { accept: 'text/turtle' },
    );
  }
}

// --- formats and broken content -----------------------------------------------------------------
const FMT = 'http://www.formats-lab.org';
for (const { format, extension } of FORMATS) {
  const url = `${FMT}/ok/doc.${extension}`;
  add(
    `format-${format}`,
    'format',
    url,
    `Valid ${format} with the right Content-Type.`,
    expectRdf(url, format),
    () => rdf(format, () => fixtureBody(url, format)),
  );
  if (format === 'rdfa') continue;
  const bad = `${FMT}/broken/doc.${extension}`;
  const before = format === 'jsonld' ? 0 : BROKEN_PREFIX_STATEMENTS;
  add(
    `syntax-error-${format}`,
    'format',
    bad,
    `${format} with a syntax error after ${before} statements.`,
    { ...expectRdf(bad, format), error: 'parse', statements: before },
    () =>
      rdf(format, () => brokenBody(bad, format), { outcome: { format, statements: before, error: 'parse' } }),
  );
}
for (const [name, format, type] of [
  ['turtle-as-text-plain', 'turtle', 'text/plain'],
  ['rdfxml-as-octet-stream', 'rdfxml', 'application/octet-stream'],
  ['jsonld-as-application-json', 'jsonld', 'application/json'],
  ['ntriples-as-text-html', 'ntriples', 'text/html'],
] as const) {
  const url = `${FMT}/mislabelled/${name}`;
  add(
    `wrong-type-${name}`,
    'format',
    url,
    `${format} served as ${type}: detect the syntax from the content.`,
    expectRdf(url, format),
    () => rdf(format, () => fixtureBody(url, format), { headers: { 'content-type': type } }),
  );
}
for (const format of ['rdfxml', 'turtle'] as const) {
  const url = `${FMT}/untyped/${format}`;
  add(
    `missing-type-${format}`,
    'format',
    url,
    `${format} without a Content-Type header.`,
    expectRdf(url, format),
    () => rdf(format, () => fixtureBody(url, format), { headers: {} }),
  );
}
const ACC = `${FMT}/html/accidental`;
add(
  'accidental-rdfa',
  'format',
  ACC,
  'An HTML page whose only RDFa is stylesheet/icon links and a title.',
  expectError(ACC, 200, 'not_rdf'),
  () => ({
    ...rdf('rdfa', () => accidentalPage('Welcome')),
    outcome: { format: null, statements: null, error: 'not_rdf' },
  }),
);
const L1X = `${FMT}/latin1/rdfxml`;
add(
  'latin1-rdfxml',
  'format',
  L1X,
  'RDF/XML in ISO-8859-1, declared by the XML declaration only.',
  expectRdf(L1X, 'rdfxml'),
  () => rdf('rdfxml', () => fixtureBody(L1X, 'rdfxml', true)),
);
const L1H = `${FMT}/latin1/rdfa`;
add(
  'latin1-rdfa',
  'format',
  L1H,
  'RDFa in ISO-8859-1, declared by the Content-Type charset and a meta tag.',
  expectRdf(L1H, 'rdfa'),
  () =>
    rdf('rdfa', () => fixtureBody(L1H, 'rdfa', true), {
      headers: { 'content-type': contentTypeOf('rdfa', true) },
    }),
);
const BADIRI = `${FMT}/iri/invalid.nt`;
add(
  'invalid-iri',
  'format',
  BADIRI,
  `N-Triples whose last IRI has a space in it (after ${BROKEN_PREFIX_STATEMENTS} good statements).`,
  { ...expectRdf(BADIRI, 'ntriples'), error: 'parse', statements: BROKEN_PREFIX_STATEMENTS },
  () =>
    rdf('ntriples', () => invalidIriBody(BADIRI), {
      outcome: { format: 'ntriples', statements: BROKEN_PREFIX_STATEMENTS, error: 'parse' },
    }),
);
const EMPTY = `${FMT}/empty.ttl`;
add(
  'empty-turtle',
  'format',
  EMPTY,
  'Turtle with prefixes and no statement.',
  { ...expectRdf(EMPTY, 'turtle'), statements: 0 },
  () => rdf('turtle', () => Buffer.from('@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n'), {}, 0),
);
const BIG = `${FMT}/big/oversized.nt`;
add(
  'oversized',
  'format',
  BIG,
  '40 MiB of N-Triples: more than the 32 MiB response limit.',
  expectError(BIG, 200, 'too_large'),
  () =>
    rdf('ntriples', oversizedBody, { outcome: { format: 'ntriples', statements: null, error: 'too_large' } }),
);

// --- content encodings --------------------------------------------------------------------------
const ENC = 'http://www.compress-lab.org';
for (const [name, encode] of [
  ['gzip', gzipSync],
  ['deflate', deflateSync],
  ['br', brotliCompressSync],
] as const) {
  const url = `${ENC}/encoded/${name}`;
  add(
    `encoding-${name}`,
    'encoding',
    url,
    `Turtle sent with Content-Encoding: ${name}.`,
    expectRdf(url, 'turtle'),
    () =>
      rdf('turtle', () => encode(fixtureBody(url, 'turtle')), {
        headers: { 'content-type': contentTypeOf('turtle'), 'content-encoding': name },
      }),
    { acceptEncoding: 'gzip, deflate, br' },
  );
}
const UNASKED = `${ENC}/encoded/gzip-unasked`;
add(
  'encoding-gzip-unasked',
  'encoding',
  UNASKED,
  'gzip sent even when Accept-Encoding did not ask for it.',
  expectRdf(UNASKED, 'turtle'),
  () =>
    rdf('turtle', () => gzipSync(fixtureBody(UNASKED, 'turtle')), {
      headers: { 'content-type': contentTypeOf('turtle'), 'content-encoding': 'gzip' },
    }),
);
for (const [name, body, encoding] of [
  ['gzip-bomb', gzipBombBody, 'gzip'],
  ['br-bomb', brotliBombBody, 'br'],
] as const) {
  const url = `${ENC}/bomb/${name}`;
  add(
    name,
    'encoding',
    url,
    `A small ${encoding} body that inflates to 128 MiB.`,
    expectError(url, 200, 'too_large'),
    () =>
      rdf('ntriples', body, {
        headers: { 'content-type': contentTypeOf('ntriples'), 'content-encoding': encoding },
        outcome: { format: 'ntriples', statements: null, error: 'too_large' },
      }),
  );
}
const BADGZ = `${ENC}/broken/bad-gzip`;
add(
  'bad-gzip',
  'encoding',
  BADGZ,
  'Content-Encoding: gzip over bytes that are not gzip.',
  expectError(BADGZ, 200, 'bad_encoding'),
  () =>
    rdf('turtle', () => fixtureBody(BADGZ, 'turtle'), {
      headers: { 'content-type': contentTypeOf('turtle'), 'content-encoding': 'gzip' },
      outcome: { format: null, statements: null, error: 'bad_encoding' },
    }),
);
const UNK = `${ENC}/broken/unknown-encoding`;
add(
  'unknown-encoding',
  'encoding',
  UNK,
  'Content-Encoding: x-snappy, which no client decodes.',
  expectError(UNK, 200, 'bad_encoding'),
  () =>
    rdf('turtle', () => fixtureBody(UNK, 'turtle'), {
      headers: { 'content-type': contentTypeOf('turtle'), 'content-encoding': 'x-snappy' },
      outcome: { format: null, statements: null, error: 'bad_encoding' },
    }),
);

// --- transport: hangs, trickles, resets, slowness -----------------------------------------------
const NET = 'http://www.flaky-lab.org';
function transport(
  t: Transport,
  url: string,
  error: ErrorCode | null,
  description: string,
  delayMs = 0,
): void {
  const exp = error
    ? expectError(url, t === 'reset-before-response' || t === 'hang' ? null : 200, error)
    : expectRdf(url, 'turtle');
  add(t === 'normal' ? 'slow' : t, 'transport', url, description, exp, () =>
    rdf('turtle', () => fixtureBody(url, 'turtle'), {
      transport: t,
      delayMs,
      outcome: { format: error ? null : 'turtle', statements: error ? null : FIXTURE_STATEMENTS, error },
    }),
  );
}
transport('hang', `${NET}/hang`, 'timeout', 'Accepts the connection and never answers.');
transport('hang-after-headers', `${NET}/hang-after-headers`, 'timeout', 'Sends the headers, then nothing.');
transport('trickle', `${NET}/trickle`, null, 'Sends the body 64 bytes every 100 ms (done in a few seconds).');
transport('trickle-forever', `${NET}/trickle-forever`, 'timeout', 'Sends one byte a second, forever.');
transport(
  'reset-before-response',
  `${NET}/reset`,
  'reset',
  'Destroys the connection on receiving the request.',
);
transport(
  'reset-mid-body',
  `${NET}/reset-mid-body`,
  'reset',
  'Destroys the connection half way through the body.',
);
transport('normal', `${NET}/slow`, null, 'Answers after 2 s, whatever latencyScale says.', 2000);

// --- robots.txt ---------------------------------------------------------------------------------
/** robots.txt variant of each robots-lab host. */
export const ROBOTS_LAB_HOSTS: ReadonlyMap<string, RobotsVariant> = new Map(
  (
    [
      'none',
      'allow',
      'disallow-paths',
      'crawl-delay',
      'token-block',
      'other-token',
      'server-error',
      'unavailable',
      'slow',
      'large',
      'redirect',
    ] as const
  ).map((v) => [`${v}.robots-lab.org`, v]),
);
for (const [host, variant] of ROBOTS_LAB_HOSTS) {
  for (const path of ['/doc', '/private/doc', ...(variant === 'large' ? ['/late/doc'] : [])]) {
    const url = `http://${host}${path}`;
    const allowed = robotsAllows(variant, path);
    const unavailable = variant === 'server-error' || variant === 'unavailable';
    const exp = allowed
      ? expectRdf(url, 'turtle')
      : expectError(url, null, unavailable ? 'robots_unavailable' : 'robots');
    const where = path === '/doc' ? '' : ` (${path})`;
    add(
      `robots-${variant}${path === '/doc' ? '' : `-${path.split('/')[1]}`}`,
      'robots',
      url,
      `robots.txt variant ${variant}${where}.`,
      exp,
      turtle(url),
    );
  }
}

// --- TLS (served only by a Web started with `https`) -----------------------------------------------
const TLS_ERRORS: Readonly<Record<TlsTrouble, ErrorCode>> = {
  expired: 'tls_expired',
  'wrong-host': 'tls_hostname',
  'self-signed': 'tls_untrusted',
  'weak-key': 'tls',
  // the first request to the authority is its robots.txt, whose timeout makes the authority unavailable
  stall: 'robots_unavailable',
};
const TLS_WHAT: Readonly<Record<TlsTrouble, string>> = {
  expired: 'A certificate from the test CA that expired a day ago.',
  'wrong-host': 'A certificate from the test CA for another host name only.',
  'self-signed': 'A self-signed certificate (no CA vouches for it).',
  'weak-key': 'A certificate from the test CA for a 1024-bit RSA key (OpenSSL: key too small).',
  stall: 'Accepts the TCP connection and never answers the TLS handshake.',
};
const TLS_OK = `https://${TLS_OK_HOST}/doc`;
add(
  'tls-ok',
  'tls',
  TLS_OK,
  'A valid certificate from the test CA.',
  expectRdf(TLS_OK, 'turtle'),
  turtle(TLS_OK),
);
for (const [host, trouble] of TLS_TROUBLE_HOSTS) {
  const url = `https://${host}/doc`;
  add(
    `tls-${trouble}`,
    'tls',
    url,
    TLS_WHAT[trouble],
    expectError(url, null, TLS_ERRORS[trouble]),
    turtle(url),
  );
}
const UPGRADED = `https://${TLS_UPGRADE_HOST}/doc`;
add(
  'tls-upgrade',
  'tls',
  `http://${TLS_UPGRADE_HOST}/doc`,
  'DBpedia and Wikidata style: every http:// URL answers 301 to the same https:// URL.',
  expectRdf(UPGRADED, 'turtle', { redirects: 1 }),
  turtle(UPGRADED),
);

/** Every scenario by name (the TLS ones are in TLS_SCENARIOS). */
export const SCENARIOS: Readonly<Record<string, Scenario>> = Object.freeze(
  Object.fromEntries(entries.map((e) => [e.scenario.name, e.scenario])),
);

/** The TLS scenarios by name: served by a Web started with `https` (docs/simweb.md#https). */
export const TLS_SCENARIOS: Readonly<Record<string, Scenario>> = Object.freeze(
  Object.fromEntries(tlsEntries.map((e) => [e.scenario.name, e.scenario])),
);

const byUrl = new Map<string, (req: ScenarioRequest) => Reply>([
  ...[...entries, ...tlsEntries].map((e) => {
    const u = new URL(e.scenario.url);
    return [u.host + u.pathname + u.search, e.reply] as const;
  }),
  ...extraRoutes,
]);

/** Hosts of the scenario catalogue (they are not part of the generated Web). */
export const SCENARIO_HOSTS: ReadonlySet<string> = new Set(
  [...byUrl.keys()].map((k) => k.slice(0, k.indexOf('/'))),
);

/** The answer for a scenario URL (host + path + query as requested), or null when none. */
export function scenarioReply(host: string, pathAndQuery: string, req: ScenarioRequest): Reply | null {
  const reply = byUrl.get(host + pathAndQuery);
  return reply ? reply(req) : null;
}
