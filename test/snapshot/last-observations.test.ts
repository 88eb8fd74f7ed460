import assert from 'node:assert/strict';
import { appendFile, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CrawledDocument } from '../../pipeline/core/index.ts';
import { openDuckDb, queryRows, sqlString } from '../../pipeline/snapshot/duckdb-session.ts';
import { readManifest } from '../../pipeline/snapshot/index.ts';
import {
  findLastObservations,
  LAST_OBSERVATIONS_DIR,
  updateLastObservations,
} from '../../pipeline/snapshot/last-observations.ts';
import { publishWeek, source, WEEK1, WEEK2, week1, week2 } from './sample-crawl.ts';

const WEEK3 = WEEK2 + 7 * 86_400_000;
const H = 'http://example.org/h';
const A = 'http://example.org/a';
const G = 'http://example.org/g';

/** Week two's documents moved to week three, without G: G's last observation stays in week two. */
function week3(): CrawledDocument[] {
  const shift = WEEK3 - WEEK2;
  return week2()
    .filter((d) => d.record.url !== G)
    .map((d) => ({ ...d, record: { ...d.record, fetchedAt: d.record.fetchedAt + shift } }));
}

let root: string;
/** The .observations folder as the publish of week two left it (before week three's). */
let afterWeek2: string;
/** What a lookup found between the publishes of weeks two and three. */
let beforeWeek3: Awaited<ReturnType<typeof lookUp>>;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'last-observations-'));
  afterWeek2 = await mkdtemp(join(tmpdir(), 'last-observations-week2-'));
  await publishWeek(root, WEEK1, source(week1()));
  // H is left out of week two: its previous observation in week three lies two snapshots back
  await publishWeek(root, WEEK2, source(week2().filter((d) => d.record.url !== H)));
  await cp(join(root, LAST_OBSERVATIONS_DIR), afterWeek2, { recursive: true });
  beforeWeek3 = await lookUp([H, A], ['2026-11-23', '2026-11-16']);
  await publishWeek(root, WEEK3, source(week3()));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(afterWeek2, { recursive: true, force: true });
});

const earlier = (...names: string[]) => names.map((name) => ({ name, folder: join(root, name) }));

/** findLastObservations for `urls` among `names` (newest first): what it read and url -> snapshot. */
async function lookUp(urls: readonly string[], names: readonly string[]) {
  const session = await openDuckDb({ memoryLimit: '64MB' });
  try {
    const { connection } = session;
    await connection.run(`CREATE TABLE wanted AS SELECT unnest([${urls.map(sqlString).join(', ')}]) AS url`);
    const found = await findLastObservations(connection, root, earlier(...names), 'wanted', 'found');
    const rows = await queryRows(connection, 'SELECT url, snapshot, graph_hash FROM found ORDER BY url');
    return { ...found, rows: rows.map((r) => r.join(' ')) };
  } finally {
    session.close();
  }
}

/** updateLastObservations on its own DuckDB, as a publish runs it after listing its folder. */
async function update(): Promise<void> {
  const session = await openDuckDb({ memoryLimit: '64MB' });
  try {
    await updateLastObservations(session.connection, root);
  } finally {
    session.close();
  }
}

/** Every URL's last observation, found the slow way: each URL's row of the newest snapshot that has it. */
async function bruteForce(): Promise<string[]> {
  const session = await openDuckDb({ memoryLimit: '64MB' });
  try {
    const files = ['2026-11-16', '2026-11-23', '2026-11-30'].map((n) =>
      sqlString(join(root, n, 'documents.parquet')),
    );
    const rows = await queryRows(
      session.connection,
      `SELECT url, snapshot, graph_hash FROM read_parquet([${files.join(', ')}])
        QUALIFY row_number() OVER (PARTITION BY url ORDER BY snapshot DESC) = 1 ORDER BY url`,
    );
    return rows.map((r) => r.join(' '));
  } finally {
    session.close();
  }
}

/** The file's rows, as bruteForce gives them. */
async function fileRows(): Promise<string[]> {
  const meta = JSON.parse(await readFile(join(root, LAST_OBSERVATIONS_DIR, 'last.json'), 'utf8'));
  const session = await openDuckDb({ memoryLimit: '64MB' });
  try {
    const file = sqlString(join(root, LAST_OBSERVATIONS_DIR, meta.file));
    const rows = await queryRows(
      session.connection,
      `SELECT url, snapshot, graph_hash FROM read_parquet(${file}) ORDER BY url`,
    );
    return rows.map((r) => r.join(' '));
  } finally {
    session.close();
  }
}

test('a document last observed two snapshots back is compared with that observation, read from the file', async () => {
  const manifest = await readManifest(join(root, '2026-11-30'));
  assert.deepEqual(manifest.previousSnapshots, ['2026-11-23', '2026-11-16']);
  const session = await openDuckDb({ memoryLimit: '64MB' });
  try {
    const file = sqlString(join(root, '2026-11-30', 'changes.parquet'));
    const [[previous, changed]] = await queryRows(
      session.connection,
      `SELECT previous_snapshot, changed FROM read_parquet(${file}) WHERE url = ${sqlString(H)}`,
    );
    assert.equal(previous, '2026-11-16');
    assert.equal(changed, true);
  } finally {
    session.close();
  }
  assert.deepEqual(beforeWeek3.readDirectly, [], 'no snapshot read one by one');
  assert.equal(beforeWeek3.fromFile, true);
  assert.deepEqual(beforeWeek3.rows, [`${A} 2026-11-23 hash-a2`, `${H} 2026-11-16 hash-h1`]);
  const now = await lookUp([G, H], ['2026-11-30', '2026-11-23', '2026-11-16']);
  assert.deepEqual(now.readDirectly, []);
  assert.deepEqual(now.rows, [`${G} 2026-11-23 hash-g`, `${H} 2026-11-30 hash-h2`]);
});

test('a lookup as of an earlier time (a snapshot published out of order) does not use a file that holds later observations', async () => {
  const found = await lookUp([H, A], ['2026-11-23', '2026-11-16']);
  assert.equal(found.fromFile, false);
  assert.deepEqual(found.readDirectly, ['2026-11-23', '2026-11-16']);
  assert.deepEqual(found.rows, beforeWeek3.rows);
});

test('the file holds every URL last observed, as a scan of every snapshot finds it', async () => {
  assert.deepEqual(await fileRows(), await bruteForce());
  const names = await readdir(join(root, LAST_OBSERVATIONS_DIR));
  assert.equal(names.length, 2, `one Parquet file and last.json, no leftovers: ${names.join(', ')}`);
});

test('a file that lags behind (a publish killed before its update) answers for its snapshots; the newer are read, then folded in', async () => {
  const dir = join(root, LAST_OBSERVATIONS_DIR);
  await rm(dir, { recursive: true });
  await cp(afterWeek2, dir, { recursive: true });
  const found = await lookUp([G, H], ['2026-11-30', '2026-11-23', '2026-11-16']);
  assert.deepEqual(found.readDirectly, ['2026-11-30']);
  assert.equal(found.fromFile, true, 'G, not in week three, came from the file');
  assert.deepEqual(found.rows, [`${G} 2026-11-23 hash-g`, `${H} 2026-11-30 hash-h2`]);
  // a tick before week three's publish (earlier holds weeks one and two only) still uses the file
  const tick = await lookUp([H], ['2026-11-23', '2026-11-16']);
  assert.deepEqual(tick.readDirectly, []);
  assert.deepEqual(tick.rows, [`${H} 2026-11-16 hash-h1`]);
  await update();
  assert.deepEqual(await fileRows(), await bruteForce());
  assert.deepEqual((await lookUp([H], ['2026-11-30', '2026-11-23', '2026-11-16'])).readDirectly, []);
});

test('a file that was changed after it was written is passed by: the snapshots are read instead', async () => {
  const meta = JSON.parse(await readFile(join(root, LAST_OBSERVATIONS_DIR, 'last.json'), 'utf8'));
  await appendFile(join(root, LAST_OBSERVATIONS_DIR, meta.file), 'x');
  const found = await lookUp([G, H], ['2026-11-30', '2026-11-23', '2026-11-16']);
  assert.equal(found.fromFile, false);
  assert.deepEqual(found.readDirectly, ['2026-11-30', '2026-11-23']);
  assert.deepEqual(found.rows, [`${G} 2026-11-23 hash-g`, `${H} 2026-11-30 hash-h2`]);
  // the next update builds it again from the snapshots
  await update();
  assert.deepEqual(await fileRows(), await bruteForce());
  assert.equal((await lookUp([G], ['2026-11-30', '2026-11-23', '2026-11-16'])).fromFile, true);
});
