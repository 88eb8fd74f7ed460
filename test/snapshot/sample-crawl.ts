/**
 * Two weeks of a small hand-made crawl that exercises every column of every table: non-ASCII
 * IRIs and literals, escapes, blank nodes, redirects, errors; week two relabels blank nodes (B),
 * reorders triples (C), adds a triple (A; and H, next to relabelled blank nodes), loses a document
 * to a 404 (E) and finds a new one (G).
 */
import type { CrawledDocument, DocumentRecord, ScheduleEntry, Statement } from '../../pipeline/core/index.ts';
import { manualClock } from '../../pipeline/core/index.ts';
import {
  openPublication,
  type PublishedSnapshot,
  type PublishOptions,
  snapshotName,
} from '../../pipeline/snapshot/index.ts';

export const WEEK1 = Date.UTC(2026, 10, 16, 0, 0, 0);
export const WEEK2 = WEEK1 + 7 * 86_400_000;
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const FOAF = 'http://xmlns.com/foaf/0.1/';

/** A statement with an IRI or blank-node object. */
export const iri = (subject: string, predicate: string, object: string): Statement => ({
  subject,
  predicate,
  object,
  objectKind: object.startsWith('_:') ? 'bnode' : 'iri',
  datatype: null,
  lang: null,
});
const lit = (
  subject: string,
  predicate: string,
  object: string,
  datatype: string,
  lang: string | null = null,
) => ({
  subject,
  predicate,
  object,
  objectKind: 'literal' as const,
  datatype,
  lang,
});

/** A fetched document of the sample crawl: 200, Turtle, 120 ms, unless `extra` says otherwise. */
export function record(url: string, fetchedAt: number, extra: Partial<DocumentRecord>): DocumentRecord {
  return {
    url,
    finalUrl: url,
    pld: new URL(url).hostname.split('.').slice(-2).join('.'),
    segment: 'kernel',
    round: 0,
    fetchedAt,
    durationMs: 120,
    status: 200,
    error: null,
    errorMessage: null,
    contentType: 'text/turtle',
    format: 'turtle',
    bytes: 512,
    statements: 0,
    contentSha256: 'c'.repeat(64),
    graphHash: null,
    etag: null,
    lastModified: null,
    headers: { 'content-type': 'text/turtle' },
    redirects: [],
    ...extra,
  };
}

function doc(r: DocumentRecord, statements: Statement[]): CrawledDocument {
  return { record: { ...r, statements: statements.length }, statements };
}

const A = 'http://example.org/a';
const aStatements = [
  iri(A, RDF_TYPE, `${FOAF}Person`),
  lit(A, `${FOAF}name`, 'Zürich "quoted" \\ back\nslash', `${XSD}string`),
  lit(A, `${FOAF}name`, 'Zürich', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString', 'de'),
  lit(A, `${FOAF}age`, '42', `${XSD}integer`),
  iri(A, `${FOAF}knows`, 'http://example.org/ä/b c'),
];
const B = 'http://example.org/b';
const bStatements = (p: string) => [
  iri(B, `${FOAF}knows`, `_:${p}0`),
  lit(`_:${p}0`, `${FOAF}name`, 'Ann', `${XSD}string`),
  iri(`_:${p}0`, `${FOAF}knows`, `_:${p}1`),
  lit(`_:${p}1`, `${FOAF}name`, 'Bob', `${XSD}string`),
];
const C = 'http://example.org/c';
const cStatements = [iri(C, RDF_TYPE, `${FOAF}Document`), lit(C, `${FOAF}title`, 'C', `${XSD}string`)];
const D = 'http://example.org/d';
const D2 = 'https://www.example.org/d2';
const E = 'http://example.org/e';
const F = 'http://other.example.net/f';
const G = 'http://example.org/g';
const H = 'http://example.org/h';
const hStatements = (p: string) => [
  iri(H, `${FOAF}knows`, `_:${p}0`),
  lit(`_:${p}0`, `${FOAF}name`, 'Hanna', `${XSD}string`),
];

/** Week one: seven documents, one behind two redirect hops, one timed out. */
export function week1(): CrawledDocument[] {
  const t = WEEK1 + 60_000;
  return [
    doc(
      record(A, t, { graphHash: 'hash-a1', etag: '"v1"', lastModified: 'Mon, 16 Nov 2026 00:00:00 GMT' }),
      aStatements,
    ),
    doc(
      record(B, t + 1000, { graphHash: 'hash-b', format: 'rdfxml', contentType: 'application/rdf+xml' }),
      bStatements('bAAAA_'),
    ),
    doc(record(C, t + 2000, { graphHash: 'hash-c', segment: 'adaptive', round: 1 }), cStatements),
    doc(
      record(D, t + 3000, {
        finalUrl: D2,
        graphHash: 'hash-d',
        headers: { 'content-type': 'application/n-triples', 'x-ünïcode': 'välue' },
        contentType: 'application/n-triples',
        format: 'ntriples',
        redirects: [
          { from: D, to: 'https://example.org/d', status: 301, at: t + 3000 },
          { from: 'https://example.org/d', to: D2, status: 303, at: t + 3100 },
        ],
      }),
      [iri(D2, RDF_TYPE, `${FOAF}Document`)],
    ),
    doc(record(E, t + 4000, { graphHash: 'hash-e' }), [lit(E, `${FOAF}title`, 'E', `${XSD}string`)]),
    doc(
      record(F, t + 5000, {
        status: null,
        error: 'timeout',
        errorMessage: 'no response within 120 s',
        contentType: null,
        format: null,
        bytes: 0,
        contentSha256: null,
        headers: {},
        segment: 'adaptive',
        round: 2,
      }),
      [],
    ),
    doc(record(H, t + 6000, { graphHash: 'hash-h1' }), hStatements('bHHHH_')),
  ];
}

/** Week two: A gains a triple, B is relabelled, C answers 304 (reordered), E answers 404, F times out again,
 * G is new, H is relabelled and gains a triple. */
export function week2(): CrawledDocument[] {
  const t = WEEK2 + 60_000;
  const [, , , d, , f] = week1();
  return [
    doc(record(A, t, { graphHash: 'hash-a2' }), [...aStatements, iri(A, `${FOAF}knows`, C)]),
    doc(record(B, t + 1000, { graphHash: 'hash-b' }), bStatements('bBBBB_').reverse()),
    // a conditional re-visit answered 304: its statements carried over from week one
    doc(
      record(C, t + 2000, {
        graphHash: 'hash-c',
        status: 304,
        validation: 'not_modified',
        carriedFrom: '2026-11-16',
      }),
      [...cStatements].reverse(),
    ),
    { ...d, record: { ...d.record, fetchedAt: t + 3000 } },
    doc(
      record(E, t + 4000, {
        status: 404,
        error: 'http_4xx',
        errorMessage: 'Not Found',
        contentType: 'text/html',
        format: null,
      }),
      [],
    ),
    { ...f, record: { ...f.record, fetchedAt: t + 5000 } },
    doc(record(G, t + 6000, { graphHash: 'hash-g', segment: 'adaptive' }), [
      iri(G, RDF_TYPE, `${FOAF}Document`),
    ]),
    doc(record(H, t + 7000, { graphHash: 'hash-h2' }), [
      lit(H, `${FOAF}title`, 'H', `${XSD}string`),
      ...hStatements('bIIII_').reverse(),
    ]),
  ];
}

/** A schedule as the schedule stage would hand it over after week two. */
export function schedule(): ScheduleEntry[] {
  return [
    {
      url: A,
      level: 1,
      intervalMs: 302_400_000,
      nextDue: WEEK2 + 302_400_000,
      strategy: 'dyldo',
      state: '{"run":1}',
    },
    {
      url: B,
      level: 0,
      intervalMs: 604_800_000,
      nextDue: WEEK2 + 604_800_000,
      strategy: 'dyldo',
      state: '{}',
    },
  ];
}

/** Wraps an array as the `documents` callback a publish takes. */
export function source(docs: CrawledDocument[]): () => AsyncIterable<CrawledDocument> {
  return async function* () {
    yield* docs;
  };
}

/** A week's schedule: given, or derived from change detection's verdicts as the observe stage does. */
export type WeekSchedule =
  | readonly ScheduleEntry[]
  | ((changes: ReadonlyMap<string, boolean | null>) => readonly ScheduleEntry[]);

/**
 * Publishes `documents` as the weekly snapshot of the week starting `start` (a one-hour crawl) under
 * `root`; `watch` gives the publish a log or a progress to report to.
 */
export async function publishWeek(
  root: string,
  start: number,
  documents: PublishOptions['documents'],
  schedule: WeekSchedule = [],
  watch: Pick<PublishOptions, 'log' | 'progress'> = {},
): Promise<PublishedSnapshot> {
  const publication = await openPublication({
    root,
    name: snapshotName('weekly', start),
    kind: 'weekly',
    startedAt: start,
    endedAt: start + 3_600_000,
    config: {},
    documents,
    clock: manualClock(start + 2 * 3_600_000),
    ...watch,
  });
  return publication.commit(
    typeof schedule === 'function' ? schedule(await publication.changes()) : schedule,
  );
}

/** Publishes the two sample weeks as weekly snapshots under `root`; week 2 may carry a schedule. */
export async function publishSampleWeeks(root: string, week2Schedule?: WeekSchedule): Promise<void> {
  await publishWeek(root, WEEK1, source(week1()));
  await publishWeek(root, WEEK2, source(week2()), week2Schedule);
}
