import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PreviousObservation, RdfFormat, Statement, WarcPointer } from '../core/index.ts';
import { batchedReads, exclusive } from './batched-reads.ts';
import { listSnapshots, observationSnapshots } from './catalogue.ts';
import { openDuckDb, queryRows, sqlString } from './duckdb-session.ts';
import { findLastObservations, lastObservationSources } from './last-observations.ts';
import { publishedQuadsSql, QUAD_COLUMNS, statementsByGraph } from './published-quads.ts';

/** The previous observations of a crawl's URLs, and their statements on demand. */
export interface PreviousContent {
  /**
   * The previous observation of `url` when it downloaded a body without error: what a conditional
   * request is made from when its server sent a validator (ETag or Last-Modified) with it, and what
   * an unchanged answer is archived as a revisit of.
   */
  previous(url: string): PreviousObservation | undefined;
  /** The observation's statements as its snapshot published them (read in batches). */
  statements(observation: PreviousObservation): Promise<Statement[]>;
  /**
   * The latest earlier observation whose final URL is `url` and whose response record was archived
   * whole: what an answer of any URL the crawl meets (the adaptive part of a weekly crawl, beyond
   * the URLs given when opening) is archived as a revisit of when its payload is the same. Looked
   * up when asked, in batches, from each URL's last observation (last-observations.ts).
   */
  archived(url: string): Promise<ArchivedObservation | undefined>;
  close(): void;
}

/** An earlier observation's archived response record. */
export interface ArchivedObservation {
  readonly snapshot: string;
  readonly finalUrl: string;
  /** SHA-256 (hex) of its decoded body. */
  readonly contentSha256: string;
  readonly warc: WarcPointer;
}

/** Keys one read takes at most: bounds the query's IN list and what one batch holds. */
const BATCH = 256;

/**
 * Reads, for each of `urls`, its most recent observation published under `root` before `before`
 * (an ISO time; expansion crawls are no observations), found as change detection finds previous
 * observations (last-observations.ts). DuckDB stays open (64MB) to read statements and archived
 * observations of other URLs when asked.
 */
export async function openPreviousContent(
  root: string,
  urls: readonly string[],
  before: string,
): Promise<PreviousContent> {
  const snapshots = observationSnapshots(await listSnapshots(root))
    .filter((s) => s.startedAt < before)
    .reverse();
  // the first crawl of a root has nothing to ask about: no DuckDB in the crawl's process then
  if (snapshots.length === 0) {
    return {
      previous: () => undefined,
      statements: async () => [],
      archived: async () => undefined,
      close: () => {},
    };
  }
  const session = await openDuckDb({ memoryLimit: '64MB' });
  const { connection } = session;
  const observations = new Map<string, PreviousObservation>();
  const folders = new Map(snapshots.map((s) => [s.name, join(root, s.name)]));
  const earlier = snapshots.map((s) => ({ name: s.name, folder: folders.get(s.name)! }));
  let sources: string[] | null;
  try {
    await connection.run('CREATE TABLE wanted (url VARCHAR)');
    const appender = await connection.createAppender('wanted');
    for (const url of urls) {
      appender.appendVarchar(url);
      appender.endRow();
    }
    appender.closeSync();
    await findLastObservations(connection, root, earlier, 'wanted', 'last_observations');
    const rows = await queryRows(
      connection,
      `SELECT snapshot, url, final_url, etag, last_modified, content_sha256, graph_hash, format, content_type, bytes,
          warc_filename, warc_offset, warc_length
        FROM last_observations
        WHERE error IS NULL AND content_sha256 IS NOT NULL`,
    );
    for (const [
      snapshot,
      url,
      finalUrl,
      etag,
      lastModified,
      sha,
      graphHash,
      format,
      contentType,
      bytes,
      warcFilename,
      warcOffset,
      warcLength,
    ] of rows) {
      observations.set(url as string, {
        snapshot: snapshot as string,
        finalUrl: finalUrl as string,
        etag: etag as string | null,
        lastModified: lastModified as string | null,
        contentSha256: sha as string,
        graphHash: graphHash as string | null,
        format: format as RdfFormat | null,
        contentType: contentType as string | null,
        bytes: Number(bytes),
        warc:
          warcFilename === null
            ? null
            : { filename: warcFilename as string, offset: Number(warcOffset), length: Number(warcLength) },
      });
    }
    await connection.run('DROP TABLE wanted');
    await connection.run('DROP TABLE last_observations');
    sources = await lastObservationSources(root, earlier);
  } catch (error) {
    session.close();
    throw error;
  }

  // one query at a time on the one connection
  const inTurn = exclusive();
  // each snapshot's quads in the current schema's shape (an older folder lacks columns)
  const quadsOf = new Map<string, string>();
  const statements = batchedReads<PreviousObservation, Statement[]>(
    async (batch) => {
      const found = new Map<PreviousObservation, Statement[]>();
      for (const snapshot of new Set(batch.map((o) => o.snapshot))) {
        const mine = batch.filter((o) => o.snapshot === snapshot);
        let quads = quadsOf.get(snapshot);
        if (quads === undefined) {
          quads = await publishedQuadsSql(folders.get(snapshot)!);
          quadsOf.set(snapshot, quads);
        }
        const graphs = [...new Set(mine.map((o) => sqlString(o.finalUrl)))].join(', ');
        const byGraph = await statementsByGraph(
          connection,
          `SELECT ${QUAD_COLUMNS} FROM ${quads} WHERE graph IN (${graphs})`,
        );
        for (const o of mine) found.set(o, byGraph.get(o.finalUrl) ?? []);
      }
      return found;
    },
    inTurn,
    BATCH,
  );
  const archived =
    sources === null
      ? async () => undefined
      : batchedReads<string, ArchivedObservation>(
          (urls) => readArchived(connection, sources, urls),
          inTurn,
          BATCH,
        );
  return {
    previous: (url) => observations.get(url),
    statements: async (o) => (await statements(o)) ?? [],
    archived,
    close: () => {
      void inTurn(async () => session.close());
    },
  };
}

/**
 * For each of `urls`, the latest observation in `sources` (each URL's last one: lastObservationSources)
 * that ended at it with a body and an archived record.
 */
async function readArchived(
  connection: DuckDBConnection,
  sources: readonly string[],
  urls: readonly string[],
): Promise<Map<string, ArchivedObservation>> {
  const wanted = `(${[...new Set(urls)].map(sqlString).join(', ')})`;
  const union = sources
    .map(
      (
        source,
      ) => `SELECT final_url, snapshot, fetched_at, url, content_sha256, warc_filename, warc_offset, warc_length
        FROM (${source})
        WHERE final_url IN ${wanted} AND error IS NULL AND content_sha256 IS NOT NULL AND warc_filename IS NOT NULL`,
    )
    .join(' UNION ALL ');
  // several URLs may end at the same one (redirects): the latest fetched of them
  const rows = await queryRows(
    connection,
    `SELECT final_url, snapshot, content_sha256, warc_filename, warc_offset, warc_length FROM (${union})
      QUALIFY row_number() OVER (PARTITION BY final_url ORDER BY fetched_at DESC, url) = 1`,
  );
  const found = new Map<string, ArchivedObservation>();
  for (const [finalUrl, snapshot, sha, filename, offset, length] of rows) {
    found.set(finalUrl as string, {
      snapshot: snapshot as string,
      finalUrl: finalUrl as string,
      contentSha256: sha as string,
      warc: { filename: filename as string, offset: Number(offset), length: Number(length) },
    });
  }
  return found;
}
