import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from './duckdb-session.ts';
import type { TableName } from './schema.ts';

/** A key (predicate, class, link target) with the statements added and removed that carry it. */
export interface DeltaCount {
  readonly key: string;
  readonly added: number;
  readonly removed: number;
}

/** A PLD's changed documents (those with delta rows) and the statements added and removed in them. */
export interface PldDelta {
  readonly pld: string;
  readonly documents: number;
  readonly added: number;
  readonly removed: number;
}

/**
 * What a snapshot's delta.parquet says changed, as the portal's "What changes" page sums it
 * (docs/data-dictionary.md, Definitions): totals, and the keys of most statements added + removed.
 * Empty for a folder published before schema 5 (no delta.parquet).
 */
export interface DeltaFigures {
  /** Documents with statements added or removed. */
  readonly documents: number;
  readonly added: number;
  readonly removed: number;
  /** Statements whose object is an IRI, rdf:type aside (those are `types`). */
  readonly linksAdded: number;
  readonly linksRemoved: number;
  /** rdf:type statements whose object is an IRI. */
  readonly typesAdded: number;
  readonly typesRemoved: number;
  /** The DELTA_KEYS predicates of most statements added + removed. */
  readonly predicates: readonly DeltaCount[];
  /** The DELTA_KEYS classes (rdf:type objects) of most statements added + removed. */
  readonly classes: readonly DeltaCount[];
  /** The DELTA_KEYS link target hosts of most links added + removed. */
  readonly linkTargets: readonly DeltaCount[];
  /** Every PLD with a changed document, by statements added + removed. */
  readonly plds: readonly PldDelta[];
}

/** Keys kept per ranking and snapshot: the digest stays small whatever the vocabulary. */
export const DELTA_KEYS = 50;
export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

export const EMPTY_DELTA: DeltaFigures = Object.freeze({
  documents: 0,
  added: 0,
  removed: 0,
  linksAdded: 0,
  linksRemoved: 0,
  typesAdded: 0,
  typesRemoved: 0,
  predicates: [],
  classes: [],
  linkTargets: [],
  plds: [],
});

const TYPE = `predicate = '${RDF_TYPE}' AND object_kind = 'iri'`;
const LINK = `predicate <> '${RDF_TYPE}' AND object_kind = 'iri'`;
/**
 * The host a link points to: the IRI's authority, lower-cased, without user or port; the scheme
 * (`urn:`) for an IRI without one.
 */
export const LINK_TARGET_SQL = `coalesce(nullif(lower(regexp_extract(object, '^[^:/?#]+://(?:[^@/?#]*@)?(\\[[^\\]]*\\]|[^:/?#]*)', 1)), ''),
  regexp_extract(object, '^([^:]*:)', 1))`;

const counted = (rows: unknown[][]): DeltaCount[] =>
  rows.map(([key, added, removed]) => ({ key: String(key), added: Number(added), removed: Number(removed) }));

/** The DELTA_KEYS `key` values of `filter`'s delta rows with most added + removed, ties by key. */
async function ranked(
  connection: DuckDBConnection,
  delta: string,
  key: string,
  filter: string,
): Promise<DeltaCount[]> {
  return counted(
    await queryRows(
      connection,
      `SELECT ${key} AS key, count(*) FILTER (op = 'added') AS added, count(*) FILTER (op = 'removed') AS removed
       FROM ${delta} WHERE ${filter} GROUP BY 1 ORDER BY added + removed DESC, key LIMIT ${DELTA_KEYS}`,
    ),
  );
}

/** Queries a snapshot's delta (with `t` giving each table as SQL) for its DeltaFigures. */
export async function queryDeltaFigures(
  connection: DuckDBConnection,
  t: (table: TableName) => string,
): Promise<DeltaFigures> {
  const delta = t('delta');
  const [[documents, added, removed, linksAdded, linksRemoved, typesAdded, typesRemoved]] = await queryRows(
    connection,
    `SELECT count(DISTINCT url), count(*) FILTER (op = 'added'), count(*) FILTER (op = 'removed'),
       count(*) FILTER (op = 'added' AND ${LINK}), count(*) FILTER (op = 'removed' AND ${LINK}),
       count(*) FILTER (op = 'added' AND ${TYPE}), count(*) FILTER (op = 'removed' AND ${TYPE})
     FROM ${delta}`,
  );
  const plds = await queryRows(
    connection,
    `SELECT d.pld, count(DISTINCT x.url), count(*) FILTER (x.op = 'added') AS added,
       count(*) FILTER (x.op = 'removed') AS removed
     FROM ${delta} AS x JOIN ${t('documents')} AS d USING (url)
     GROUP BY 1 ORDER BY added + removed DESC, 1`,
  );
  return {
    documents: Number(documents),
    added: Number(added),
    removed: Number(removed),
    linksAdded: Number(linksAdded),
    linksRemoved: Number(linksRemoved),
    typesAdded: Number(typesAdded),
    typesRemoved: Number(typesRemoved),
    predicates: await ranked(connection, delta, 'predicate', 'true'),
    classes: await ranked(connection, delta, 'object', TYPE),
    linkTargets: await ranked(connection, delta, LINK_TARGET_SQL, LINK),
    plds: plds.map(([pld, docs, a, r]) => ({
      pld: String(pld),
      documents: Number(docs),
      added: Number(a),
      removed: Number(r),
    })),
  };
}
