/**
 * The Dynamics page's availability distribution buckets each document by the share of its attempts
 * that returned RDF. Found while writing the truth audit's definition of it (docs/audit.md,
 * Findings): the share was rounded to three decimals before bucketing, so a document that failed
 * once in 2,000 attempts was counted "always" and one that succeeded once in 2,001 "never". Real
 * DuckDB over a snapshot folder of that many observations, read by the portal's own history code.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type CatalogueEntry, openDuckDb } from '../../pipeline/snapshot/index.ts';
import { queryHistory } from '../../pipeline/stats/history.ts';
import { loadHistoryState } from '../../pipeline/stats/history-state.ts';

test('a document that failed once in 2,000 attempts is not "always" available, nor one that succeeded once in 2,001 "never"', async () => {
  const work = await mkdtemp(join(tmpdir(), 'availability-buckets-'));
  const session = await openDuckDb();
  try {
    const name = '2026-01-05';
    await mkdir(join(work, name));
    const { connection } = session;
    // hourly observations of three documents: one failure in 2,000, one success in 2,001, always
    await connection.run(`CREATE TABLE d AS
      SELECT '${name}' AS snapshot, 'http://example.org/' || doc AS url, 'example.org' AS pld, 'kernel' AS segment,
        TIMESTAMPTZ '2026-01-05 00:00:00+00' + INTERVAL (i) HOUR AS fetched_at,
        CASE WHEN (doc = 'a' AND i = 0) OR (doc = 'b' AND i > 0) THEN 'http_5xx' END AS error
      FROM (VALUES ('a', 2000), ('b', 2001), ('c', 10)) AS t(doc, n), range(0, 2001) AS r(i) WHERE i < n`);
    await connection.run(`COPY d TO '${join(work, name, 'documents.parquet')}' (FORMAT parquet)`);
    await connection.run(`COPY (SELECT snapshot, url, NULL::BOOLEAN AS changed, NULL::TIMESTAMPTZ AS previous_fetched_at
      FROM d) TO '${join(work, name, 'changes.parquet')}' (FORMAT parquet)`);
    const entry = { name, manifestSha256: '0'.repeat(64) } as CatalogueEntry;
    await loadHistoryState(connection, work, [entry], join(work, 'cache'));
    const { availability } = await queryHistory(connection);
    assert.deepEqual(availability.rows, [
      ['over 0, <50%', 1],
      ['90% to <100%', 1],
      ['always', 1],
    ]);
  } finally {
    session.close();
    await rm(work, { recursive: true, force: true });
  }
});
