import { join } from 'node:path';
import type { PreviousObservation, RdfFormat, Statement } from '../core/index.ts';
import { listSnapshots, observationSnapshots } from './catalogue.ts';
import { openDuckDb, queryRows, sqlString } from './duckdb-session.ts';
import { findLastObservations } from './last-observations.ts';
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
  close(): void;
}

/** Past this many waiting reads a batch goes at once, without waiting for the event loop's turn. */
const BATCH = 256;

/**
 * Reads, for each of `urls`, its most recent observation published under `root` before `before`
 * (an ISO time; expansion crawls are no observations), found as change detection finds previous
 * observations (last-observations.ts). DuckDB stays open (64MB) to read statements when asked.
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
    return { previous: () => undefined, statements: async () => [], close: () => {} };
  }
  const session = await openDuckDb({ memoryLimit: '64MB' });
  const { connection } = session;
  const observations = new Map<string, PreviousObservation>();
  const folders = new Map(snapshots.map((s) => [s.name, join(root, s.name)]));
  try {
    await connection.run('CREATE TABLE wanted (url VARCHAR)');
    const appender = await connection.createAppender('wanted');
    for (const url of urls) {
      appender.appendVarchar(url);
      appender.endRow();
    }
    appender.closeSync();
    const earlier = snapshots.map((s) => ({ name: s.name, folder: folders.get(s.name)! }));
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
  } catch (error) {
    session.close();
    throw error;
  }

  let waiting: Array<{ o: PreviousObservation; resolve(s: Statement[]): void; reject(e: unknown): void }> =
    [];
  let scheduled = false;
  // one query at a time on the one connection
  let reading: Promise<void> = Promise.resolve();
  const flush = () => {
    scheduled = false;
    const batch = waiting;
    waiting = [];
    reading = reading.then(() => read(batch));
  };
  // each snapshot's quads in the current schema's shape (an older folder lacks columns)
  const quadsOf = new Map<string, string>();
  const read = async (batch: typeof waiting) => {
    for (const snapshot of new Set(batch.map((w) => w.o.snapshot))) {
      const mine = batch.filter((w) => w.o.snapshot === snapshot);
      try {
        let quads = quadsOf.get(snapshot);
        if (quads === undefined) {
          quads = await publishedQuadsSql(folders.get(snapshot)!);
          quadsOf.set(snapshot, quads);
        }
        const graphs = [...new Set(mine.map((w) => sqlString(w.o.finalUrl)))].join(', ');
        const byGraph = await statementsByGraph(
          connection,
          `SELECT ${QUAD_COLUMNS} FROM ${quads} WHERE graph IN (${graphs})`,
        );
        for (const w of mine) w.resolve(byGraph.get(w.o.finalUrl) ?? []);
      } catch (error) {
        for (const w of mine) w.reject(error);
      }
    }
  };
  return {
    previous: (url) => observations.get(url),
    statements: (o) =>
      new Promise((resolve, reject) => {
        waiting.push({ o, resolve, reject });
        if (waiting.length >= BATCH) flush();
        else if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }),
    close: () => {
      void reading.finally(() => session.close());
    },
  };
}
