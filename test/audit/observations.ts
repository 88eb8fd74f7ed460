/**
 * The independent account of a crawl series: for every crawl, the documents it attempted and what
 * each observed, derived from the simulated Web's ground truth (its routing, documents, robots.txt
 * rules and graphs) and from the server's request log alone: each logged request is replayed
 * against the routing at the virtual moment it was served, with the headers it came with. Nothing
 * here reads a snapshot folder or runs the pipeline's code (docs/audit.md).
 */
import { createHash } from 'node:crypto';
import { DataFactory, type Quad } from 'n3';
import rdfCanonize from 'rdf-canonize';
import { getDomain } from 'tldts';
import { CRAWL_DEFAULTS, normaliseIri } from '../../pipeline/core/index.ts';
import { documentState, versionOf } from '../../pipeline/simweb/document-state.ts';
import { matchPath } from '../../pipeline/simweb/documents.ts';
import { documentGraph } from '../../pipeline/simweb/graph.ts';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import type { Reply } from '../../pipeline/simweb/reply.ts';
import { ROBOTS_REDIRECT_TARGET, robotsAllows } from '../../pipeline/simweb/robots.ts';
import { robotsVariantOf, route } from '../../pipeline/simweb/router.ts';
import { fixtureGraph } from '../../pipeline/simweb/scenario-content.ts';
import { SCENARIO_HOSTS } from '../../pipeline/simweb/scenarios.ts';
import type { GeneratedWeb } from '../../pipeline/simweb/web-shape.ts';
import type { AuditCrawl, AuditSeries } from './audit-series.ts';

/** A graph as observed: its statements and an identity that is equal exactly for isomorphic graphs. */
export interface Graph {
  readonly quads: readonly Quad[];
  /** Canonical N-Quads lines (RDFC-1.0, each graph on its own), one per statement. */
  readonly lines: ReadonlySet<string>;
  /** SHA-256 of the sorted canonical lines. */
  readonly key: string;
}

export interface Hop {
  readonly from: string;
  readonly to: string;
  readonly status: number;
}

/** What one attempted URL observed in one crawl: one row of the independent account. */
export interface Observation {
  readonly crawl: AuditCrawl;
  readonly url: string;
  readonly segment: 'kernel' | 'adaptive';
  readonly round: number;
  readonly pld: string;
  readonly status: number | null;
  readonly error: string | null;
  readonly format: string | null;
  readonly finalUrl: string;
  readonly hops: readonly Hop[];
  /** Its own fetch requested the final URL (false: it reached a URL another row of the crawl claimed). */
  readonly downloaded: boolean;
  /** The graph it holds: the body's, or for a 304 the one carried over; null when it retrieved no RDF. */
  readonly graph: Graph | null;
  /** SHA-256 of the body it holds (carried over for a 304), null without one. */
  readonly bodySha: string | null;
  /**
   * Decompressed bytes of the body the server sent for it (0 for a refusal, a loop and a 304, also
   * one the crawl checked with an unconditional request: bytes downloaded count the bodies the rows
   * observe, data-dictionary.md, Definitions).
   */
  readonly receivedBytes: number;
  /** A 304 that carried the previous observation over. */
  readonly notModified: boolean;
  /** The response it holds came with a validator (ETag or Last-Modified): a later re-visit may be conditional. */
  readonly validators: boolean;
}

/** An observation against its previous one (the URL's most recent row in an earlier crawl). */
export interface Comparison {
  readonly previous: Observation | null;
  /** Both available: whether the graphs differ (not isomorphic); else null. */
  readonly changed: boolean | null;
  /** Availability status (a 304 counted as the 200 it confirms) or error differs; null without a previous one. */
  readonly availabilityChanged: boolean | null;
  /** Canonical statements in one graph and not the other, each graph canonicalised on its own; 0 when unchanged. */
  readonly added: number | null;
  readonly removed: number | null;
}

export type ComparedObservation = Observation & Comparison;

/** Available: retrieved RDF (docs/data-dictionary.md, Definitions): a 2xx read as RDF, or a 304 confirming one. */
export function isAvailable(o: { readonly error: string | null }): boolean {
  return o.error === null || o.error === 'parse';
}

/** Statements of an observation, as published (0 when it holds no graph). */
export function statementsOf(o: Observation): number {
  return o.graph?.quads.length ?? 0;
}

/** A request the account could not explain, or a request it expected and the server never saw. */
export interface Anomaly {
  readonly crawl: string;
  readonly what: string;
}

export interface IndependentAccount {
  /** Per crawl (in crawl order), its observations sorted by URL. */
  readonly crawls: ReadonlyArray<{
    readonly crawl: AuditCrawl;
    readonly rows: readonly ComparedObservation[];
    /** Requests that got a response (robots.txt included): the HTTP exchanges the crawl could archive. */
    readonly exchanges: number;
  }>;
  readonly anomalies: readonly Anomaly[];
  /** Documents whose body breaks part way: their statements before the error are the crawl's (see PartialStatements). */
  readonly partial: ReadonlyArray<{
    readonly crawl: string;
    readonly url: string;
    readonly statements: number;
  }>;
}

/**
 * The one thing the account takes from the crawl: the statements a parser read from a body that
 * breaks part way (a syntax error), which depend on the parser, not on the Web. They are checked to
 * be statements of the graph the server serialized (all but those with blank nodes, whose labels
 * differ), and no more of them than it holds.
 */
export type PartialStatements = (snapshot: string, graph: string) => Promise<Quad[]>;

export function pldOf(url: string): string {
  const host = new URL(url).hostname.toLowerCase();
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}

const ROBOTS_PATHS = new Set(['/robots.txt', ROBOTS_REDIRECT_TARGET]);
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const graphCache = new Map<string, Graph>();

/** The canonical form of a graph: RDFC-1.0 over the statements (rdf-canonize), cached by content. */
async function graphOf(quads: readonly Quad[], cacheKey: string): Promise<Graph> {
  const cached = graphCache.get(cacheKey);
  if (cached) return cached;
  // statements keep the publisher's graph name (N-Quads, TriG), as the crawl keeps it
  const dataset = quads.map((q) => ({
    subject: q.subject,
    predicate: q.predicate,
    object: q.object,
    graph: q.graph,
  }));
  const text = await rdfCanonize.canonize(dataset, { algorithm: 'RDFC-1.0' });
  const lines = text.split('\n').filter((l) => l !== '');
  const graph = { quads, lines: new Set(lines), key: sha256([...lines].sort().join('\n')) };
  graphCache.set(cacheKey, graph);
  return graph;
}

/**
 * The graph the simulated Web serves at `url` at `t` in `format`, by its own generator (null: not
 * a document of it). N-Quads and TriG put the statements in a graph named after the document.
 */
async function servedGraph(web: GeneratedWeb, url: string, t: number, format: string): Promise<Graph | null> {
  const u = new URL(url);
  const named = format === 'nquads' || format === 'trig';
  const inGraph = (quads: readonly Quad[], name: string) =>
    named
      ? quads.map((q) => DataFactory.quad(q.subject, q.predicate, q.object, DataFactory.namedNode(name)))
      : quads;
  if (SCENARIO_HOSTS.has(u.hostname))
    return graphOf(inGraph(fixtureGraph(url), url), `fixture ${url} ${format}`);
  const match = matchPath(web, u.hostname, u.pathname);
  if (match?.kind !== 'document') return null;
  const state = documentState(web, match.address.doc);
  const version = versionOf(web, state, t);
  return graphOf(
    inGraph(documentGraph(web, state, version), match.address.docUrl),
    `doc ${match.address.doc} v${version.all} ${named ? 'named' : 'default'}`,
  );
}

/** Every IRI of a graph in any position (literal datatypes too), normalised as URIs are identified. */
export function linksOf(graph: Graph): string[] {
  const links = new Set<string>();
  const add = (iri: string) => {
    const link = normaliseIri(iri);
    if (link !== null) links.add(link);
  };
  for (const q of graph.quads) {
    if (q.subject.termType === 'NamedNode') add(q.subject.value);
    add(q.predicate.value);
    if (q.object.termType === 'NamedNode') add(q.object.value);
    else if (q.object.termType === 'Literal') add(q.object.datatype.value);
  }
  return [...links];
}

/** Classes a graph declares for its own document: rdf:type IRIs of the subject named like the graph. */
export function selfClasses(graph: Graph, finalUrl: string): string[] {
  return [
    ...new Set(
      graph.quads
        .filter(
          (q) =>
            q.subject.value === finalUrl &&
            q.subject.termType === 'NamedNode' &&
            q.predicate.value === RDF_TYPE &&
            q.object.termType === 'NamedNode',
        )
        .map((q) => q.object.value),
    ),
  ];
}

/** Transports that never finish an answer, and those that send no response at all. */
const UNFINISHED: ReadonlySet<string> = new Set([
  'hang',
  'hang-after-headers',
  'trickle-forever',
  'reset-before-response',
  'reset-mid-body',
]);
const SILENT: ReadonlySet<string> = new Set(['hang', 'reset-before-response']);

const absolute = (e: RequestLogEntry) => `${e.scheme}://${e.host}${e.path}`;

/** What the server answered a logged request: the routing replayed at the moment and with the headers it had. */
function replay(web: GeneratedWeb, e: RequestLogEntry): Reply {
  const q = e.path.indexOf('?');
  return route(
    web,
    {
      host: e.host,
      path: q < 0 ? e.path : e.path.slice(0, q),
      search: q < 0 ? '' : e.path.slice(q),
      scheme: e.scheme,
      accept: e.accept ?? undefined,
      ifNoneMatch: e.ifNoneMatch ?? undefined,
      ifModifiedSince: e.ifModifiedSince ?? undefined,
    },
    e.virtualAt,
  );
}

/**
 * The syntax a body is in, as far as it can be told: the one the server wrote, except N3 sent
 * without its media type (missing or wrong Content-Type), which the server writes in Turtle's
 * syntax and no reader can tell from Turtle.
 */
function formatSeen(reply: Reply): string | null {
  const f = reply.outcome.format;
  const type = (reply.headers['content-type'] ?? '').split(';')[0].trim();
  return f === 'n3' && type !== 'text/n3' ? 'turtle' : f;
}

/** robots.txt's verdict for a URL (RFC 9309 as the simulated Web states it for our product token). */
function robotsError(web: GeneratedWeb, url: string): 'robots' | 'robots_unavailable' | null {
  const u = new URL(url);
  const variant = robotsVariantOf(web, u.hostname);
  if (variant === null) return null; // not a host of the Web: robots.txt answers 404, allow all
  if (variant === 'server-error' || variant === 'unavailable') return 'robots_unavailable';
  return robotsAllows(variant, u.pathname) ? null : 'robots';
}

/** A row being worked out: where its fetch stands. */
interface Draft {
  url: string;
  segment: 'kernel' | 'adaptive';
  round: number;
  result: Observation | null;
}

/** The crawl's requests of each URL, oldest first, consumed as the account explains them. */
class RequestQueues {
  private readonly byUrl = new Map<string, RequestLogEntry[]>();
  constructor(entries: readonly RequestLogEntry[]) {
    for (const e of entries) {
      if (ROBOTS_PATHS.has(e.path) || e.method !== 'GET') continue;
      const url = absolute(e);
      this.byUrl.set(url, [...(this.byUrl.get(url) ?? []), e]);
    }
  }
  take(url: string): RequestLogEntry[] {
    const list = this.byUrl.get(url) ?? [];
    this.byUrl.delete(url);
    return list;
  }
  requested(): string[] {
    return [...this.byUrl.keys()];
  }
}

/**
 * Works out one crawl's rows. `last` holds each URL's most recent observation before this crawl
 * (what a conditional re-visit asked with and what a 304 carried over).
 */
async function accountForCrawl(
  web: GeneratedWeb,
  crawl: AuditCrawl,
  kernel: readonly string[],
  last: ReadonlyMap<string, Observation>,
  anomalies: Anomaly[],
  partial: {
    readonly read: PartialStatements | null;
    readonly found: IndependentAccount['partial'][number][];
  },
): Promise<{ rows: Observation[]; exchanges: number }> {
  const queues = new RequestQueues(crawl.requests);
  const anomaly = (what: string) => anomalies.push({ crawl: crawl.name, what });
  /** URL -> the draft whose fetch claimed it first (requested it, or stopped at robots.txt). */
  const claims = new Map<string, Draft>();
  const t = crawl.at;

  const finish = (d: Draft, o: Omit<Observation, 'crawl' | 'url' | 'segment' | 'round' | 'pld'>) => {
    d.result = { ...o, crawl, url: d.url, segment: d.segment, round: d.round, pld: pldOf(d.url) };
    return d.result;
  };
  const failure = (status: number | null, error: string, finalUrl: string, hops: Hop[]) => ({
    status,
    error,
    format: null,
    finalUrl,
    hops,
    downloaded: true,
    graph: null,
    bodySha: null,
    receivedBytes: 0,
    notModified: false,
    validators: false,
  });

  let silent = 0;
  const working = new Set<Draft>();
  const resolve = async (d: Draft): Promise<Observation> => {
    working.add(d);
    try {
      return await follow(d);
    } finally {
      working.delete(d);
    }
  };
  const follow = async (d: Draft): Promise<Observation> => {
    let url = d.url;
    const hops: Hop[] = [];
    const seen = new Set([url]);
    for (;;) {
      const claimer = claims.get(url);
      if (claimer && claimer !== d) {
        // fetches that hand over to each other: a redirect loop across fetches
        if (!claimer.result && working.has(claimer))
          return finish(d, failure(null, 'redirect_loop', url, hops));
        // another fetch of the crawl requested this URL first: the row takes over its answer
        const other = claimer.result ?? (await resolve(claimer));
        return finish(d, { ...other, hops, downloaded: false, receivedBytes: 0 });
      }
      claims.set(url, d);
      const refused = robotsError(web, url);
      if (refused) return finish(d, failure(null, refused, url, hops));
      const entries = queues.take(url);
      if (entries.length === 0) {
        anomaly(`${d.url}: the account expects a request of ${url}; the server logged none`);
        return finish(d, failure(null, 'unexplained', url, hops));
      }
      const replies = entries.map((e) => replay(web, e));
      entries.forEach((e, i) => {
        const t = replies[i].transport;
        // the server logs a status once the answer is sent in full
        const logged = UNFINISHED.has(t) ? null : replies[i].status;
        if (e.status !== logged) anomaly(`${url}: logged ${e.status}, the routing replays ${logged}`);
        if (SILENT.has(t)) silent++;
      });
      const reply = replies.at(-1)!;
      const location = reply.headers.location;
      if (reply.status >= 300 && reply.status < 400 && reply.status !== 304 && location !== undefined) {
        const to = new URL(location, url).href;
        hops.push({ from: url, to, status: reply.status });
        if (seen.has(to) || claims.get(to) === d)
          return finish(d, failure(reply.status, 'redirect_loop', url, hops));
        if (hops.length > CRAWL_DEFAULTS.maxRedirects)
          return finish(d, failure(reply.status, 'redirect_limit', url, hops));
        seen.add(to);
        url = to;
        continue;
      }
      if (entries.length > 2) anomaly(`${url}: ${entries.length} requests of one URL in one crawl`);
      return finish(d, await answer(d, url, hops, entries, replies));
    }
  };

  /** The row of a final answer; `replies` are a conditional request and possibly its unconditional check. */
  const answer = async (
    d: Draft,
    url: string,
    hops: Hop[],
    entries: RequestLogEntry[],
    replies: Reply[],
  ): Promise<Omit<Observation, 'crawl' | 'url' | 'segment' | 'round' | 'pld'>> => {
    const previous = last.get(d.url);
    const body = (r: Reply) => (r.status === 304 ? Buffer.alloc(0) : r.body());
    /** Bytes of a body that arrived whole (one cut off or never sent counts none, as the crawl keeps none). */
    const whole = (r: Reply) => (UNFINISHED.has(r.transport) ? 0 : body(r).length);
    const first = replies[0];
    if (first.status === 304) {
      if (!previous?.graph || previous.bodySha === null)
        anomaly(`${d.url}: a 304 without a previous observation to carry over`);
      const check = replies[1];
      const asked = entries[0];
      const etag = first.headers.etag;
      const contradicted =
        (asked.ifNoneMatch !== null && etag !== undefined && etag !== asked.ifNoneMatch) ||
        (asked.ifModifiedSince !== null &&
          first.headers['last-modified'] !== undefined &&
          Date.parse(first.headers['last-modified']) > Date.parse(asked.ifModifiedSince));
      if (!check || (!contradicted && sha256(body(check)) === previous?.bodySha))
        return {
          status: 304,
          error: previous?.error ?? null,
          format: previous?.format ?? null,
          finalUrl: url,
          hops,
          downloaded: true,
          graph: previous?.graph ?? null,
          bodySha: previous?.bodySha ?? null,
          receivedBytes: 0,
          notModified: true,
          validators: true,
        };
      // a stale 304: the row holds the unconditional answer
      return finalAnswer(url, hops, check, whole(check));
    }
    return finalAnswer(url, hops, first, whole(first));
  };

  const finalAnswer = async (url: string, hops: Hop[], reply: Reply, received: number) => {
    const silent = reply.transport === 'hang' || reply.transport === 'reset-before-response';
    const o = reply.outcome;
    const rdf = o.format !== null && (o.error === null || o.error === 'parse');
    let graph = rdf ? await servedGraph(web, url, t, o.format!) : null;
    if (rdf && !graph) anomaly(`${url}: RDF the account cannot name the graph of`);
    if (o.error === 'parse' && graph) graph = await brokenPart(url, graph);
    return {
      status: silent ? null : reply.status,
      error: o.error,
      format: rdf ? formatSeen(reply) : null,
      finalUrl: url,
      hops,
      downloaded: true,
      graph,
      bodySha: o.error === null && !silent ? sha256(reply.body()) : null,
      receivedBytes: received,
      notModified: false,
      validators: reply.headers.etag !== undefined || reply.headers['last-modified'] !== undefined,
    };
  };

  /** The statements before a syntax error, as the crawl read them, checked against the served graph. */
  const brokenPart = async (url: string, whole: Graph): Promise<Graph | null> => {
    if (!partial.read) {
      anomaly(`${url}: statements before a syntax error depend on the parser, and none were given`);
      return null;
    }
    const quads = await partial.read(crawl.name, url);
    const ground = (q: Quad) => q.subject.termType !== 'BlankNode' && q.object.termType !== 'BlankNode';
    const key = (q: Quad) => `${q.subject.value} ${q.predicate.value} ${q.object.termType} ${q.object.value}`;
    const served = new Set(whole.quads.filter(ground).map(key));
    const foreign = quads.filter((q) => ground(q) && !served.has(key(q)));
    if (foreign.length > 0 || quads.length > whole.quads.length)
      anomaly(`${url}: ${foreign.length} statements before the syntax error are not in the served graph`);
    partial.found.push({ crawl: crawl.name, url, statements: quads.length });
    return graphOf(quads, `partial ${crawl.name} ${url} ${quads.length}`);
  };

  const drafts: Draft[] = [];
  const resolveRound = async (urls: readonly string[], segment: Draft['segment'], round: number) => {
    const list = urls.map((url): Draft => ({ url, segment, round, result: null }));
    drafts.push(...list);
    for (const d of list) if (!d.result) await resolve(d);
    return list;
  };

  if (crawl.kind === 'weekly') {
    const seeds = await resolveRound(kernel, 'kernel', 0);
    const isKernel = new Set(kernel);
    // links of every graph the kernel's own fetches hold, carried ones included
    const links = new Set<string>();
    for (const d of seeds) {
      const r = d.result!;
      if (r.downloaded && r.graph && isAvailable(r)) for (const l of linksOf(r.graph)) links.add(l);
    }
    // a URL some kernel fetch was redirected to is fetched elsewhere: no row of its own
    const elsewhere = new Set(seeds.flatMap((d) => d.result!.hops.map((h) => h.to)));
    const adaptive = [...links].filter((l) => !isKernel.has(l) && !elsewhere.has(l)).sort();
    if (adaptive.length > kernel.length)
      anomaly(`${adaptive.length} adaptive candidates exceed the budget of ${kernel.length}`);
    await resolveRound(adaptive, 'adaptive', 1);
  } else {
    // a tick crawls the kernel documents due: those it requested (a due document robots.txt
    // refuses would leave no trace, and none is ever due: it is never available)
    const isKernel = new Set(kernel);
    const due = queues.requested().filter((u) => isKernel.has(u));
    await resolveRound(due.sort(), 'kernel', 0);
  }
  for (const url of queues.requested()) anomaly(`${url}: requested, and no row of the account explains it`);
  // which of several rows reaching one final URL downloads it is a matter of timing: harmless unless
  // they lie on different PLDs, whose statements would then depend on it
  const downloader = new Map<string, string>();
  for (const d of drafts)
    if (d.result?.downloaded && d.result.graph) downloader.set(d.result.finalUrl, d.result.pld);
  for (const d of drafts)
    if (
      d.result &&
      !d.result.downloaded &&
      d.result.graph &&
      downloader.get(d.result.finalUrl) !== d.result.pld
    )
      anomaly(
        `${d.url}: shares its document with a row of another PLD, so timing decides which PLD counts its statements`,
      );
  return {
    rows: drafts.map((d) => d.result!).sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0)),
    exchanges: crawl.requests.length - silent,
  };
}

/** The independent account of every crawl of the series, in crawl order. */
export async function accountForSeries(
  series: Pick<AuditSeries, 'kernel' | 'crawls'>,
  web: GeneratedWeb,
  readPartial: PartialStatements | null = null,
): Promise<IndependentAccount> {
  const last = new Map<string, Observation>();
  const anomalies: Anomaly[] = [];
  const crawls: Array<{ crawl: AuditCrawl; rows: ComparedObservation[]; exchanges: number }> = [];
  const partial = { read: readPartial, found: [] as IndependentAccount['partial'][number][] };
  for (const crawl of series.crawls) {
    const { rows, exchanges } = await accountForCrawl(web, crawl, series.kernel, last, anomalies, partial);
    crawls.push({
      crawl,
      rows: rows.map((r) => ({ ...r, ...compare(r, last.get(r.url) ?? null) })),
      exchanges,
    });
    for (const r of rows) last.set(r.url, r);
  }
  return { crawls, anomalies, partial: partial.found };
}

/** The status availability is compared by: a 304 that carried an available observation over is the 200 it confirms. */
function availabilityStatus(o: Observation): number | null {
  return o.status === 304 && isAvailable(o) ? 200 : o.status;
}

/** Change detection as docs/data-dictionary.md defines it (Definitions), on the account's graphs. */
export function compare(o: Observation, previous: Observation | null): Comparison {
  if (previous === null)
    return { previous, changed: null, availabilityChanged: null, added: null, removed: null };
  const availabilityChanged =
    availabilityStatus(o) !== availabilityStatus(previous) || o.error !== previous.error;
  if (!isAvailable(o) || !isAvailable(previous) || !o.graph || !previous.graph)
    return { previous, changed: null, availabilityChanged, added: null, removed: null };
  const now = o.graph.lines;
  const before = previous.graph.lines;
  const changed = o.graph.key !== previous.graph.key;
  return {
    previous,
    changed,
    availabilityChanged,
    added: changed ? [...now].filter((l) => !before.has(l)).length : 0,
    removed: changed ? [...before].filter((l) => !now.has(l)).length : 0,
  };
}
