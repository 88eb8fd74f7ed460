/**
 * Schema upgrades of a database that workers crawl. The upgrade's ALTER TABLEs lock whole tables in
 * their own order, and workers' queries lock them in others: without giving way (lock_timeout,
 * then again) an upgrade deadlocked with them, and PostgreSQL killed one side's query.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger } from '../../pipeline/core/index.ts';
import { openPool } from '../../pipeline/distributed/pool.ts';
import { askedContexts, contextState } from '../../pipeline/distributed/store.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { firstDifferences, publishedContent } from '../soak/published-content.ts';
import { query, startPostgres, type TestPostgres } from './postgres.ts';
import { coordinatedWeek, distributedConfig, freshRoot, oneProcessWeek } from './sim-distributed.ts';

const W0 = Date.UTC(2026, 0, 5);
let server: TestPostgres;

before(async () => {
  server = await startPostgres();
});

after(() => server?.stop());

/**
 * Turns a current database back into one of an earlier schema: no crawl_worker table, no
 * revisit_trust column (schema 3), URLs keyed by their text and a context's answer as TEXT (schema
 * 4), no version (the context table's moved column is older); `keepTables` leaves the tables and
 * columns, so that workers of this version keep crawling it while the upgrade runs: its statements
 * take the same locks.
 */
async function makeOld(url: string, keepTables = false): Promise<void> {
  const drop = keepTables
    ? ''
    : `DROP TABLE crawl_worker; ALTER TABLE pld_lease DROP COLUMN revisit_trust;
       DROP INDEX frontier_url; ALTER TABLE frontier ADD PRIMARY KEY (crawl, url);
       DROP INDEX result_url; ALTER TABLE result ADD PRIMARY KEY (crawl, url);
       DROP INDEX context_url; DROP INDEX context_pending;
       ALTER TABLE context DROP COLUMN answer, ADD COLUMN text text, ADD COLUMN error text, ADD PRIMARY KEY (crawl, url);
       CREATE INDEX context_asked ON context (crawl, pld) WHERE text IS NULL AND error IS NULL;`;
  await query(url, `${drop} COMMENT ON TABLE crawl IS NULL`);
}

/** A coordinator (or worker) starting: it connects, and upgrades the schema where it is old. */
async function connect(url: string): Promise<void> {
  const pool = await openPool(url, silentLogger);
  await pool.end();
}

test('a database of an earlier schema is upgraded on connecting: its contexts keep their answers, long URLs fit', async () => {
  const url = await server.database('previous');
  await connect(url);
  await makeOld(url);
  await query(
    url,
    `INSERT INTO crawl (id, plan, config) VALUES ('old', '{}', '{}');
     INSERT INTO context (crawl, url, pld, text, error) VALUES
       ('old', 'http://a.example/c1', 'a.example', '{"@context": {"x": "a\\"b' || chr(10) || chr(1) || 'é"}}', NULL),
       ('old', 'http://a.example/c2', 'a.example', NULL, 'JSON-LD context http://a.example/c2: http_4xx'),
       ('old', 'http://b.example/c3', 'b.example', NULL, NULL);`,
  );
  await connect(url);
  const pool = await openPool(url, silentLogger);
  try {
    assert.deepEqual(await contextState(pool, 'old', 'http://a.example/c1'), {
      pld: 'a.example',
      moved: null,
      answer: { text: '{"@context": {"x": "a\\"b\n\u0001é"}}', error: null },
    });
    assert.deepEqual((await contextState(pool, 'old', 'http://a.example/c2')).answer, {
      text: null,
      error: 'JSON-LD context http://a.example/c2: http_4xx',
    });
    assert.deepEqual(await askedContexts(pool, 'old', ['a.example', 'b.example']), [
      { url: 'http://b.example/c3', pld: 'b.example' },
    ]);
    // a URL longer than a btree entry, once and once only
    const long = `http://c.example/${'x1y2z3'.repeat(1000)}`;
    const insert = `INSERT INTO frontier (crawl, url, pld, depth) VALUES ('old', $1, 'c.example', 1)
                    ON CONFLICT (crawl, url_key(url)) DO UPDATE SET inlinks = frontier.inlinks + 1`;
    await pool.query(insert, [long]);
    await pool.query(insert, [long]);
    const { rows } = await pool.query('SELECT inlinks FROM frontier WHERE url = $1', [long]);
    assert.deepEqual(rows, [{ inlinks: 1 }]);
  } finally {
    await pool.end();
  }
  const columns = await query(
    url,
    `SELECT table_name || '.' || column_name AS c FROM information_schema.columns
     WHERE table_name IN ('crawl_worker', 'pld_lease') AND column_name IN ('revisit_trust', 'slots') ORDER BY 1`,
  );
  assert.deepEqual(
    columns.map((r) => r.c),
    ['crawl_worker.slots', 'pld_lease.revisit_trust'],
  );
});

test('coordinators upgrading the schema while two workers crawl: no deadlock, the one-process snapshot', async () => {
  const sim = await startSimWeb({ seed: 5, docs: 400, plds: 30, latencyScale: 0, faults: 1, now: W0 });
  try {
    const week = {
      kernel: rdfDocuments(sim, W0).slice(0, 100),
      at: W0,
      adaptiveRounds: 1,
      config: distributedConfig(sim, { delayMs: 5 }),
    };
    const reference = freshRoot('schema-one-');
    assert.equal((await oneProcessWeek(sim, reference, week)).status, 'published');
    const url = await server.database('upgrade');
    await connect(url);
    let upgrades = 0;
    let crawling = true;
    const root = freshRoot('schema-coordinated-');
    const week$ = coordinatedWeek(sim, root, week, url, 2).finally(() => {
      crawling = false;
    });
    // coordinators starting one after another on an old database, as long as the workers crawl
    while (crawling) {
      await makeOld(url, true);
      await connect(url);
      upgrades++;
    }
    const { outcome, recorded } = await week$;
    assert.equal(outcome.status, 'published');
    assert.ok(upgrades > 1, `upgrades while crawling: ${upgrades}`);
    const expected = await publishedContent(join(reference, '2026-01-05'));
    const content = await publishedContent(join(root, '2026-01-05'));
    assert.deepEqual(content.duplicateUrls, []);
    assert.deepEqual(firstDifferences(expected.documents, content.documents), []);
    assert.equal(
      recorded.reduce((a, b) => a + b, 0),
      content.documents.length,
    );
  } finally {
    await sim.close();
  }
});
