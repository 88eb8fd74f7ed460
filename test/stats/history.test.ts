import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  type CatalogueEntry,
  type DuckDbSession,
  openDuckDb,
  sqlString,
} from '../../pipeline/snapshot/index.ts';
import { QUERIES_DIR } from '../../pipeline/stats/doc-queries.ts';
import { type HistoryFigures, queryHistory } from '../../pipeline/stats/history.ts';
import { loadHistoryState } from '../../pipeline/stats/history-state.ts';
import { writeTenYears } from '../portal/ten-years.ts';

let work: string;
let root: string;
let entries: CatalogueEntry[];
let session: DuckDbSession;
let c: DuckDBConnection;
let counter = 0;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'history-test-'));
  root = join(work, 'snapshots');
  // 36 weeks: documents first compared from the 30th snapshot on, so comparisons and changes vary
  entries = await writeTenYears({ root, cacheDir: join(work, 'digests'), weeks: 36, intervals: 180 });
  session = await openDuckDb();
  c = session.connection;
});

after(async () => {
  session?.close();
  await rm(work, { recursive: true, force: true });
});

const rows = async (sql: string) => (await c.runAndReadAll(sql)).getRows();
const freshCache = () => join(work, `cache-${counter++}`);

/** The history of `list` built in one go from a cache of its own: the reference for every cache use. */
async function cold(list: readonly CatalogueEntry[]): Promise<HistoryFigures> {
  await loadHistoryState(c, root, list, freshCache());
  return queryHistory(c);
}

/** An example query of docs/queries run as published, over the Parquet of `list`'s folders. */
async function example(file: string, list: readonly CatalogueEntry[], select: string): Promise<unknown[][]> {
  const sql = (await readFile(join(QUERIES_DIR, file), 'utf8')).replace(
    /'snapshots\/\*\/(\w+\.parquet)'/g,
    (_, name: string) => `[${list.map((e) => sqlString(join(root, e.name, name))).join(', ')}]`,
  );
  return rows(`WITH q AS (${sql.trim().replace(/;$/, '')}) ${select}`);
}

test('the running totals agree, document by document and PLD by PLD, with the example queries over all Parquet', async () => {
  await loadHistoryState(c, root, entries, freshCache());
  const rate = (part: string, whole: string) => `round(${part} / nullif(${whole}, 0), 3)`;
  const observed = `unchanged_seconds + coalesce((SELECT sum(seconds) FROM h_change_gaps AS g WHERE g.url = h.url), 0)`;
  assert.deepEqual(
    await rows(`SELECT url, comparisons, changes, ${rate('changes', 'comparisons')},
                  CASE WHEN comparisons > 0 THEN round((${observed}) / 86400, 1) END,
                  ${rate('changes', `(${observed}) / 604800`)}
                FROM h_documents AS h WHERE observations > 0 ORDER BY url`),
    await example(
      'change-frequency-per-document.sql',
      entries,
      'SELECT url, comparisons, changes, change_rate, observed_days, changes_per_week_seen FROM q ORDER BY url',
    ),
  );
  assert.deepEqual(
    await rows(`SELECT url, first_seen, last_seen, attempts, available, ${rate('available', 'attempts')}
                FROM h_documents WHERE attempts > 0 ORDER BY url`),
    await example(
      'lifespan-availability.sql',
      entries,
      'SELECT url, first_seen, last_seen, attempts, available, availability FROM q ORDER BY url',
    ),
  );
  assert.deepEqual(
    await rows(`SELECT pld, count(*), sum(comparisons)::BIGINT, sum(changes)::BIGINT, ${rate('sum(changes)', 'sum(comparisons)')}
                FROM h_pld_documents GROUP BY pld ORDER BY pld`),
    await example('change-frequency-per-pld.sql', entries, 'SELECT * FROM q ORDER BY pld'),
  );
  const history = await queryHistory(c);
  assert.ok(history.changeFrequency.rows.length > 2, 'the series has documents of several change rates');
  assert.equal(history.mostDynamicPlds.rows.length, 15);
});

test('adding snapshots to a cached history gives the history built in one go', async () => {
  const cache = freshCache();
  for (const n of [1, 100, 101, entries.length]) await loadHistoryState(c, root, entries.slice(0, n), cache);
  assert.deepEqual(await queryHistory(c), await cold(entries));
  const key = JSON.parse(await readFile(join(cache, 'history', 'state.json'), 'utf8'));
  assert.deepEqual(
    key.covers.map(([name]: [string]) => name),
    entries.map((e) => e.name),
  );
});

test('a cached history that counts a snapshot since republished or withdrawn is not used', async () => {
  const cache = freshCache();
  await loadHistoryState(c, root, entries, cache);
  const before = await queryHistory(c);
  // republished: the same name under another manifest, here with the rows of an empty crawl
  const name = entries[50].name;
  for (const table of ['documents', 'changes']) {
    const file = join(root, name, `${table}.parquet`);
    await c.run(
      `COPY (FROM read_parquet(${sqlString(file)}) LIMIT 0) TO ${sqlString(`${file}.empty`)} (FORMAT parquet)`,
    );
    await c.run(
      `COPY (FROM read_parquet(${sqlString(`${file}.empty`)})) TO ${sqlString(file)} (FORMAT parquet)`,
    );
  }
  const republished = entries.map((e, i) => (i === 50 ? { ...e, manifestSha256: 'f'.repeat(64) } : e));
  await loadHistoryState(c, root, republished, cache);
  const after = await queryHistory(c);
  assert.deepEqual(after, await cold(republished));
  assert.notDeepEqual(after, before, 'the republished snapshot changes the figures');
  // withdrawn: the catalogue no longer lists a snapshot the cache counts
  const withdrawn = republished.filter((_, i) => i !== 120);
  await loadHistoryState(c, root, withdrawn, cache);
  assert.deepEqual(await queryHistory(c), await cold(withdrawn));
});
