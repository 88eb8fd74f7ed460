import type { DuckDBConnection } from '@duckdb/node-api';
import { countBy, queryRows, sqlString } from './duckdb-session.ts';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
/** How many PLDs, classes and predicates the stats name one by one; the totals count them all. */
export const TOP_N = 25;

export interface RankedCount {
  readonly key: string;
  readonly count: number;
}

/**
 * Aggregates computed once at publish time and stored in manifest.json, so that the portal and
 * trend charts never rescan old quads. Counts keyed by value use `none` for a missing value.
 */
export interface SnapshotStats {
  readonly documents: number;
  /**
   * Response bytes (decompressed) downloaded: a body reached through several URLs counts once, and a
   * 304 downloads none (its row repeats the previous body's size).
   */
  readonly bytes: number;
  /** Rows of quads.parquet (distinct triples per graph). */
  readonly statements: number;
  readonly distinctSubjects: number;
  readonly distinctPredicates: number;
  /** Distinct IRIs in object position of rdf:type. */
  readonly distinctClasses: number;
  readonly literals: number;
  readonly distinctBlankNodes: number;
  readonly redirectHops: number;
  readonly redirectedDocuments: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly byError: Readonly<Record<string, number>>;
  readonly byFormat: Readonly<Record<string, number>>;
  readonly bySegment: Readonly<Record<string, number>>;
  readonly plds: { readonly total: number; readonly top: readonly RankedCount[] };
  readonly topClasses: readonly RankedCount[];
  readonly topPredicates: readonly RankedCount[];
  readonly changes: {
    /** Content changed against the previous observation. */
    readonly changed: number;
    readonly unchanged: number;
    /** No previous observation in any earlier snapshot. */
    readonly new: number;
    /** A previous observation exists but one side retrieved no RDF. */
    readonly notComparable: number;
    readonly availabilityChanged: number;
    readonly triplesAdded: number;
    readonly triplesRemoved: number;
  };
}

/**
 * The documents rows whose `bytes` were downloaded by this crawl: not a handed-over row (another row
 * downloaded its body), not a 304 (its row repeats the bytes of the body it confirms; docs/errata.md).
 */
export const DOWNLOADED_BODY = `downloaded_by = url AND validation IS DISTINCT FROM 'not_modified'`;

async function ranked(connection: DuckDBConnection, sql: string): Promise<RankedCount[]> {
  return (await queryRows(connection, `${sql} ORDER BY 2 DESC, 1 LIMIT ${TOP_N}`)).map(([key, count]) => ({
    key: String(key),
    count: Number(count),
  }));
}

/** Computes the stats from the Parquet files just written in `files` (table name -> path). */
export async function computeStats(
  connection: DuckDBConnection,
  files: Readonly<Record<'documents' | 'quads' | 'redirects' | 'changes', string>>,
): Promise<SnapshotStats> {
  const d = `read_parquet(${sqlString(files.documents)})`;
  const q = `read_parquet(${sqlString(files.quads)})`;
  const r = `read_parquet(${sqlString(files.redirects)})`;
  const c = `read_parquet(${sqlString(files.changes)})`;
  const [[documents, bytes, redirectedDocuments, pldTotal]] = await queryRows(
    connection,
    // bytes downloaded: a body reached through several URLs counts once, for the row that downloaded it
    `SELECT count(*), coalesce(sum(bytes) FILTER (${DOWNLOADED_BODY}), 0), count(*) FILTER (redirects > 0),
      count(DISTINCT pld) FROM ${d}`,
  );
  const [[statements, subjects, predicates, literals]] = await queryRows(
    connection,
    `SELECT count(*), count(DISTINCT subject), count(DISTINCT predicate), count(*) FILTER (object_kind = 'literal')
      FROM ${q}`,
  );
  const [[classes]] = await queryRows(
    connection,
    `SELECT count(DISTINCT object) FROM ${q} WHERE predicate = '${RDF_TYPE}' AND object_kind = 'iri'`,
  );
  const [[blanks]] = await queryRows(
    connection,
    `SELECT count(DISTINCT term) FROM (SELECT subject AS term FROM ${q} WHERE starts_with(subject, '_:')
      UNION ALL SELECT object FROM ${q} WHERE object_kind = 'bnode')`,
  );
  const [[hops]] = await queryRows(connection, `SELECT count(*) FROM ${r}`);
  const [[changed, unchanged, fresh, notComparable, availability, added, removed]] = await queryRows(
    connection,
    `SELECT count(*) FILTER (changed), count(*) FILTER (NOT changed), count(*) FILTER (previous_snapshot IS NULL),
      count(*) FILTER (previous_snapshot IS NOT NULL AND changed IS NULL), count(*) FILTER (availability_changed),
      coalesce(sum(added), 0), coalesce(sum(removed), 0) FROM ${c}`,
  );
  return {
    documents: Number(documents),
    bytes: Number(bytes),
    statements: Number(statements),
    distinctSubjects: Number(subjects),
    distinctPredicates: Number(predicates),
    distinctClasses: Number(classes),
    literals: Number(literals),
    distinctBlankNodes: Number(blanks),
    redirectHops: Number(hops),
    redirectedDocuments: Number(redirectedDocuments),
    byStatus: await countBy(connection, `SELECT status, count(*) FROM ${d} GROUP BY ALL ORDER BY 1`),
    byError: await countBy(connection, `SELECT error, count(*) FROM ${d} GROUP BY ALL ORDER BY 1`),
    byFormat: await countBy(connection, `SELECT format, count(*) FROM ${d} GROUP BY ALL ORDER BY 1`),
    bySegment: await countBy(connection, `SELECT segment, count(*) FROM ${d} GROUP BY ALL ORDER BY 1`),
    plds: {
      total: Number(pldTotal),
      top: await ranked(connection, `SELECT pld, count(*) FROM ${d} GROUP BY 1`),
    },
    topClasses: await ranked(
      connection,
      `SELECT object, count(*) FROM ${q} WHERE predicate = '${RDF_TYPE}' AND object_kind = 'iri' GROUP BY 1`,
    ),
    topPredicates: await ranked(connection, `SELECT predicate, count(*) FROM ${q} GROUP BY 1`),
    changes: {
      changed: Number(changed),
      unchanged: Number(unchanged),
      new: Number(fresh),
      notComparable: Number(notComparable),
      availabilityChanged: Number(availability),
      triplesAdded: Number(added),
      triplesRemoved: Number(removed),
    },
  };
}
