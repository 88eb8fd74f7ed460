/**
 * The ground truth: for every URI of the generated Web, what dereferencing it gives at a moment
 * (following redirects as a crawler would), and its whole change history and lifetime. Built
 * from the same routing as the server, without building any body.
 */
import { CRAWL_DEFAULTS, type ErrorCode, normaliseIri, type RdfFormat } from '../core/index.ts';
import { documentState, eventsUntil } from './document-state.ts';
import type { ChangeKind } from './dynamics.ts';
import { robotsAllows } from './robots.ts';
import { robotsVariantOf, route } from './router.ts';
import type { GeneratedWeb } from './web-shape.ts';

/** The Accept the truth assumes: every RDF syntax, HTML (RDFa) last. */
export const TRUTH_ACCEPT =
  'application/rdf+xml, text/turtle, application/ld+json, application/n-triples, application/n-quads, application/trig, text/n3, text/html;q=0.5';

export interface TruthChange {
  readonly at: string;
  readonly kind: ChangeKind;
  /** False for cosmetic changes (blank node labels, order): the graph stays isomorphic. */
  readonly graphChanged: boolean;
}

export interface TruthRecord {
  /** The URI as a crawler normalises it (fragment stripped, percent-encoded). */
  readonly uri: string;
  /** `document`: a generated document's URI; `term`: a vocabulary term that redirects to its vocabulary. */
  readonly kind: 'document' | 'term';
  readonly doc: number;
  readonly pld: string;
  readonly host: string;
  /** The moment the dereferencing fields describe. */
  readonly at: string;
  readonly alive: boolean;
  /** Final status; null when no response would arrive. */
  readonly status: number | null;
  readonly error: ErrorCode | null;
  /** Dereferences to RDF with statements at `at` (robots.txt aside). */
  readonly rdf: boolean;
  readonly finalUrl: string | null;
  readonly redirects: number;
  readonly format: RdfFormat | null;
  readonly statements: number | null;
  /** robots.txt lets our product token fetch every URL on the way. */
  readonly robotsAllowed: boolean;
  readonly bucket: string;
  readonly process: string;
  readonly meanIntervalDays: number | null;
  readonly bornAt: string | null;
  readonly diedAt: string | null;
  /** Every change within the simulated span, also those after `at`. */
  readonly changes: readonly TruthChange[];
}

interface Dereferenced {
  status: number | null;
  error: ErrorCode | null;
  finalUrl: string | null;
  redirects: number;
  format: RdfFormat | null;
  statements: number | null;
  robotsAllowed: boolean;
}

/** Follows a URL through the simulated Web at `t` as a crawler with default limits would. */
export function dereference(web: GeneratedWeb, uri: string, t: number): Dereferenced {
  let url = new URL(uri);
  url.hash = '';
  const seen = new Set<string>();
  let robotsAllowed = true;
  for (let hops = 0; ; hops++) {
    seen.add(url.href);
    const variant = robotsVariantOf(web, url.hostname);
    robotsAllowed &&= variant !== null && robotsAllows(variant, url.pathname);
    const reply = route(
      web,
      {
        host: url.hostname,
        path: url.pathname,
        scheme: url.protocol === 'https:' ? 'https' : 'http',
        search: url.search,
        accept: TRUTH_ACCEPT,
        ifNoneMatch: undefined,
      },
      t,
    );
    const location = reply.headers.location;
    if (reply.status >= 300 && reply.status < 400 && reply.status !== 304) {
      if (!location)
        return {
          status: reply.status,
          error: 'redirect_invalid',
          finalUrl: url.href,
          redirects: hops,
          format: null,
          statements: null,
          robotsAllowed,
        };
      const next = new URL(location, url);
      if (seen.has(next.href))
        return {
          status: null,
          error: 'redirect_loop',
          finalUrl: uri,
          redirects: hops + 1,
          format: null,
          statements: null,
          robotsAllowed,
        };
      if (hops + 1 > CRAWL_DEFAULTS.maxRedirects)
        return {
          status: null,
          error: 'redirect_limit',
          finalUrl: uri,
          redirects: hops + 1,
          format: null,
          statements: null,
          robotsAllowed,
        };
      url = next;
      continue;
    }
    const o = reply.outcome;
    const silent = reply.transport === 'hang' || reply.transport.startsWith('reset');
    return {
      status: silent ? null : reply.status,
      error: o.error,
      finalUrl: url.href,
      redirects: hops,
      format: o.format,
      statements: o.statements,
      robotsAllowed,
    };
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Truth for every document and redirecting vocabulary term at `t`, one record at a time. */
export function* truthRecords(web: GeneratedWeb, t: number): Generator<TruthRecord> {
  const end = web.options.epochMs + web.options.horizonMs;
  for (let doc = 0; doc < web.docCount; doc++) {
    const s = documentState(web, doc);
    const d = dereference(web, s.address.uri, t);
    const changes = eventsUntil(web, s, end).map((e) => ({
      at: iso(e.at)!,
      kind: e.kind,
      graphChanged: e.kind !== 'cosmetic',
    }));
    const base = {
      doc,
      pld: s.address.pld.domain,
      host: s.address.host,
      at: iso(t)!,
      alive:
        s.life.bornAt === null || t >= s.life.bornAt ? s.life.diedAt === null || t < s.life.diedAt : false,
      ...d,
      rdf: d.error === null && (d.statements ?? 0) > 0,
      bucket: s.process.bucket,
      process: s.process.kind,
      meanIntervalDays: Number.isFinite(s.process.meanIntervalMs)
        ? s.process.meanIntervalMs / 86_400_000
        : null,
      bornAt: iso(s.life.bornAt),
      diedAt: iso(s.life.diedAt),
      changes,
    };
    yield { uri: normaliseIri(s.address.uri)!, kind: 'document', ...base };
    const v = s.address.vocabulary;
    if (v && v.style !== 'hash') {
      for (const local of [...v.classes, ...v.properties]) {
        const uri = v.namespace + local;
        const dt = dereference(web, uri, t);
        yield {
          uri: normaliseIri(uri)!,
          kind: 'term',
          ...base,
          ...dt,
          rdf: dt.error === null && (dt.statements ?? 0) > 0,
        };
      }
    }
  }
}
