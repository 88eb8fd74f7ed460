import type { DuckDBConnection } from '@duckdb/node-api';
import type { Statement } from '../core/index.ts';
import { diffStatements } from '../rdf/index.ts';
import { openDeltaStage } from './delta-rows.ts';
import { retrievedRdf, sqlString } from './duckdb-session.ts';
import { type EarlierSnapshot, findLastObservations } from './last-observations.ts';
import { publishedQuadsSql, QUAD_COLUMNS, statementsByGraph } from './published-quads.ts';
import { availabilityChangedSql, parquetFileName } from './schema.ts';
import { verifyFiles } from './verify.ts';

/** Changed documents whose triples are diffed together; bounds the statements held in memory. */
const DIFF_BATCH = 2000;

/**
 * An observation is comparable when it retrieved RDF: no error, or a parse error (the statements
 * before the error are kept and hashed). Anything else is an availability fact, not content.
 */

/**
 * Finds each URL's previous observation (its row in the most recent earlier snapshot that has it:
 * last-observations.ts) into previous_observations, and verifies every snapshot it found one in
 * (documents.parquet and quads.parquet against their checksums): what the new snapshot builds on is
 * checked first, so that a damaged or forged folder stops it (corrupt) instead of entering its
 * changes. Returns those snapshots' names, newest first.
 */
async function loadPreviousObservations(
  connection: DuckDBConnection,
  root: string,
  earlier: readonly EarlierSnapshot[],
): Promise<string[]> {
  const verified = new Set<string>();
  const verify = async ({ name, folder }: EarlierSnapshot) => {
    if (verified.has(name)) return;
    await verifyFiles(folder, { read: [parquetFileName('documents'), parquetFileName('quads')] });
    verified.add(name);
  };
  await findLastObservations(connection, root, earlier, 'stage_documents', 'last_observations', verify);
  await connection.run(`CREATE TABLE previous_observations AS
    SELECT url, snapshot AS previous_snapshot, fetched_at AS previous_fetched_at,
      final_url AS previous_final_url, status AS previous_status, error AS previous_error,
      graph_hash AS previous_graph_hash
    FROM last_observations`);
  await connection.run('DROP TABLE last_observations');
  const found = new Set(
    (await connection.runAndReadAll('SELECT DISTINCT previous_snapshot FROM previous_observations'))
      .getRows()
      .map((r) => r[0] as string),
  );
  const read = earlier.filter((e) => found.has(e.name));
  for (const snapshot of read) await verify(snapshot);
  return read.map((e) => e.name);
}

/**
 * Diffs every changed document, batch by batch: its counts of triples added and removed into
 * diff_counts, the statements themselves into stage_delta (delta-rows.ts).
 */
async function diffChangedDocuments(
  connection: DuckDBConnection,
  folderOf: ReadonlyMap<string, string>,
): Promise<void> {
  await connection.run('CREATE TABLE diff_counts (url VARCHAR, added BIGINT, removed BIGINT)');
  const changed = (
    await connection.runAndReadAll(`SELECT d.url, d.final_url, p.previous_snapshot, p.previous_final_url
      FROM stage_changes c JOIN stage_documents d USING (url) JOIN previous_observations p USING (url)
      WHERE c.changed ORDER BY p.previous_snapshot, d.url`)
  ).getRows() as string[][];
  const appender = await connection.createAppender('diff_counts');
  const delta = await openDeltaStage(connection);
  // each earlier snapshot's quads in the current schema's shape (an older folder lacks columns)
  const quadsOf = new Map<string, string>();
  for (let start = 0; start < changed.length; start += DIFF_BATCH) {
    const batch = changed.slice(start, start + DIFF_BATCH);
    const current = await statementsByGraph(
      connection,
      `SELECT DISTINCT ${QUAD_COLUMNS} FROM stage_quads
        WHERE graph IN (${batch.map((r) => sqlString(r[1])).join(', ')})`,
    );
    const previous = new Map<string, Map<string, Statement[]>>();
    for (const snapshot of new Set(batch.map((r) => r[2]))) {
      const graphs = batch.filter((r) => r[2] === snapshot).map((r) => sqlString(r[3]));
      let quads = quadsOf.get(snapshot);
      if (quads === undefined) {
        quads = await publishedQuadsSql(folderOf.get(snapshot)!);
        quadsOf.set(snapshot, quads);
      }
      previous.set(
        snapshot,
        await statementsByGraph(
          connection,
          `SELECT ${QUAD_COLUMNS} FROM ${quads} WHERE graph IN (${graphs.join(', ')})`,
        ),
      );
    }
    for (const [url, finalUrl, snapshot, previousFinalUrl] of batch) {
      // blank-node aware: both versions are canonicalised on their own (pipeline/rdf)
      const diff = await diffStatements(
        previous.get(snapshot)?.get(previousFinalUrl) ?? [],
        current.get(finalUrl) ?? [],
      );
      appender.appendVarchar(url);
      appender.appendBigInt(BigInt(diff.added.length));
      appender.appendBigInt(BigInt(diff.removed.length));
      appender.endRow();
      delta.append(
        { url, graph: finalUrl, previousSnapshot: snapshot, previousGraph: previousFinalUrl },
        diff,
      );
    }
  }
  appender.closeSync();
  delta.close();
}

/**
 * Builds stage_changes: for every document of this crawl, its previous observation, whether its
 * content changed (canonical graph hash differs; null when there is no previous observation or
 * either side retrieved no RDF), the triples added and removed, and, separately, whether its
 * availability changed (status or error; a 304 that carried the statements over counts as the 200
 * it confirms: docs/data-dictionary.md, Definitions). `earlier` lists the earlier snapshots of
 * `root` to compare with, newest first. Returns the names of the snapshots it compared with.
 */
export async function detectChanges(
  connection: DuckDBConnection,
  root: string,
  earlier: readonly EarlierSnapshot[],
): Promise<string[]> {
  const read = await loadPreviousObservations(connection, root, earlier);
  await connection.run(`CREATE TABLE stage_changes AS
    SELECT d.url, p.previous_snapshot, p.previous_fetched_at,
      CASE WHEN p.previous_snapshot IS NULL OR NOT ${retrievedRdf('d.error')} OR NOT ${retrievedRdf('p.previous_error')} THEN NULL
        ELSE d.graph_hash IS DISTINCT FROM p.previous_graph_hash END AS changed,
      d.graph_hash, p.previous_graph_hash,
      ${availabilityChangedSql(
        'p.previous_snapshot',
        { status: 'd.status', error: 'd.error' },
        { status: 'p.previous_status', error: 'p.previous_error' },
      )} AS availability_changed,
      d.status, p.previous_status, d.error, p.previous_error
    FROM stage_documents d LEFT JOIN previous_observations p USING (url)`);
  await diffChangedDocuments(connection, new Map(earlier.map((e) => [e.name, e.folder])));
  await connection.run(`ALTER TABLE stage_changes ADD COLUMN added BIGINT`);
  await connection.run(`ALTER TABLE stage_changes ADD COLUMN removed BIGINT`);
  await connection.run(`UPDATE stage_changes SET added = 0, removed = 0 WHERE changed = false`);
  await connection.run(`UPDATE stage_changes c SET added = x.added, removed = x.removed
    FROM diff_counts x WHERE c.url = x.url`);
  return read;
}
