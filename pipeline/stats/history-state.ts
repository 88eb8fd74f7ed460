import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { makeDirectory, writeFileAtomic } from '../core/index.ts';
import { type CatalogueEntry, retrievedRdf, sqlString } from '../snapshot/index.ts';

/**
 * The history's running totals, one table per grain, each a sum (or min, max, any) over the
 * snapshots folded in so far, so that folding in a snapshot never needs the older ones:
 * - per document: observations, comparisons and changes (changes.parquet), attempts, returned RDF,
 *   first and last fetch and whether it was ever kernel (documents.parquet), and the time its
 *   unchanged comparisons spanned (each one's gap since the observation it was compared with);
 * - per document and gap bucket (20 a decade of hours): the changed comparisons and the time they
 *   spanned, so that a change rate per unit of time can be estimated from gaps of any lengths
 *   without keeping every comparison (history.ts);
 * - per PLD and document: comparisons and changes of the observations found in both tables;
 * - per PLD: its first fetch and the snapshot of it.
 */
const TABLES = {
  h_documents: `url VARCHAR, observations BIGINT, comparisons BIGINT, changes BIGINT, kernel BOOLEAN,
    first_seen TIMESTAMPTZ, last_seen TIMESTAMPTZ, attempts BIGINT, available BIGINT, unchanged_seconds DOUBLE`,
  h_change_gaps: 'url VARCHAR, bucket INTEGER, changes BIGINT, seconds DOUBLE',
  h_pld_documents: 'pld VARCHAR, url VARCHAR, comparisons BIGINT, changes BIGINT',
  h_pld_first: 'pld VARCHAR, first_at TIMESTAMPTZ, first_snapshot VARCHAR',
} as const;
type StateTable = keyof typeof TABLES;

/** How the totals of two parts combine, per table (the key columns first). */
const COMBINE: Record<StateTable, string> = {
  h_documents: `url, sum(observations)::BIGINT AS observations, sum(comparisons)::BIGINT AS comparisons,
    sum(changes)::BIGINT AS changes, bool_or(kernel) AS kernel, min(first_seen) AS first_seen,
    max(last_seen) AS last_seen, sum(attempts)::BIGINT AS attempts, sum(available)::BIGINT AS available,
    sum(unchanged_seconds) AS unchanged_seconds`,
  h_change_gaps: 'url, bucket, sum(changes)::BIGINT AS changes, sum(seconds) AS seconds',
  h_pld_documents: 'pld, url, sum(comparisons)::BIGINT AS comparisons, sum(changes)::BIGINT AS changes',
  // ties on the instant go to the first name, so that the result does not depend on how the folds were cut
  h_pld_first: `pld, min(first_at) AS first_at,
    arg_min(first_snapshot, (first_at, first_snapshot)) AS first_snapshot`,
};
const KEYS: Record<StateTable, string> = {
  h_documents: 'url',
  h_change_gaps: 'url, bucket',
  h_pld_documents: 'pld, url',
  h_pld_first: 'pld',
};

/** Bumped whenever the tables or their queries change, so that a cached state is rebuilt. */
const STATE_VERSION = 2;
/** Snapshots read per fold: bounds the SQL's length and DuckDB's memory, not the result. */
const FOLD = 400;

/** state.json: which snapshots (by name and manifest SHA-256) the cached tables sum. */
interface StateKey {
  readonly version: number;
  readonly covers: ReadonlyArray<readonly [string, string]>;
  /** Suffix of the Parquet files holding this state. */
  readonly id: string;
}

/** The totals of the snapshots `names` of `root`, read from their documents and changes tables. */
function foldSql(root: string, names: readonly string[]): Record<StateTable, string> {
  const list = (file: string) =>
    `read_parquet([${names.map((n) => sqlString(join(root, n, file))).join(', ')}])`;
  const documents = list('documents.parquet');
  const changes = list('changes.parquet');
  // each comparison with its gap: from the previous observation's fetch to this one's
  const compared = `(SELECT c.url, c.changed, date_diff('second', c.previous_fetched_at, d.fetched_at) AS gap
    FROM ${changes} AS c JOIN ${documents} AS d USING (snapshot, url) WHERE c.changed IS NOT NULL)`;
  return {
    h_documents: `WITH c AS (SELECT url, count(*) AS observations, count(changed) AS comparisons,
          count(*) FILTER (changed) AS changes FROM ${changes} GROUP BY url),
        g AS (SELECT url, sum(gap) FILTER (NOT changed) AS unchanged_seconds FROM ${compared} GROUP BY url),
        d AS (SELECT url, bool_or(segment = 'kernel') AS kernel, min(fetched_at) AS first_seen,
          max(fetched_at) AS last_seen, count(*) AS attempts, count(*) FILTER (${retrievedRdf()}) AS available
          FROM ${documents} GROUP BY url)
      SELECT url, coalesce(observations, 0), coalesce(comparisons, 0), coalesce(changes, 0), coalesce(kernel, false),
        first_seen, last_seen, coalesce(attempts, 0), coalesce(available, 0), coalesce(unchanged_seconds, 0)
      FROM c FULL JOIN d USING (url) LEFT JOIN g USING (url)`,
    h_change_gaps: `SELECT url, floor(20 * log10(gap / 3600))::INTEGER, count(*), sum(gap)
      FROM ${compared} WHERE changed AND gap > 0 GROUP BY ALL`,
    h_pld_documents: `SELECT d.pld, d.url, count(c.changed), count(*) FILTER (c.changed)
      FROM ${changes} AS c JOIN ${documents} AS d USING (snapshot, url) GROUP BY ALL`,
    h_pld_first: `SELECT pld, min(fetched_at), arg_min(snapshot, (fetched_at, snapshot)) FROM ${documents} GROUP BY pld`,
  };
}

async function readKey(dir: string): Promise<StateKey | null> {
  try {
    const key = JSON.parse(await readFile(join(dir, HISTORY_KEY_FILE), 'utf8')) as StateKey;
    return key.version === STATE_VERSION ? key : null;
  } catch {
    return null; // no state yet (or unreadable): start from nothing
  }
}

const stateFile = (dir: string, table: StateTable, id: string) => join(dir, `${table}-${id}.parquet`);

/** The folder of `cacheDir` holding the totals; the portal also publishes it (build-portal.ts). */
export const HISTORY_DIR = 'history';
/** The key of the totals: which snapshots they sum, and the suffix of their files. */
export const HISTORY_KEY_FILE = 'state.json';

/** The files of a key's totals, key first, as names inside the history folder. */
function keyFiles(key: StateKey): string[] {
  return [HISTORY_KEY_FILE, ...(Object.keys(TABLES) as StateTable[]).map((t) => `${t}-${key.id}.parquet`)];
}

/** The files of the cached totals in `cacheDir` (names inside its history folder), none when there are none. */
export async function historyFiles(cacheDir: string): Promise<string[]> {
  const key = await readKey(join(cacheDir, HISTORY_DIR));
  return key ? keyFiles(key) : [];
}

/**
 * The files a state.json's text names (itself first), or null when it is not a key of this
 * version: for totals fetched from a published portal into an empty cache, which the next
 * loadHistoryState then checks against the catalogue like any cached totals.
 */
export function historyFilesOf(keyText: string): string[] | null {
  try {
    const key = JSON.parse(keyText) as StateKey;
    return key.version === STATE_VERSION && /^[0-9a-f]{16}$/.test(key.id) && Array.isArray(key.covers)
      ? keyFiles(key)
      : null;
  } catch {
    return null;
  }
}

/**
 * The cached totals and whether they can be extended: usable when every snapshot they cover is
 * still published with the same manifest; `todo` are the snapshots whose tables must be read.
 */
async function cachedState(dir: string, catalogue: readonly CatalogueEntry[]) {
  const old = await readKey(dir);
  const published = new Map(catalogue.map((e) => [e.name, e.manifestSha256]));
  const usable = old?.covers.every(([name, sha]) => published.get(name) === sha) ?? false;
  const covered = new Set(usable ? old?.covers.map(([name]) => name) : []);
  return { old, usable, todo: catalogue.filter((e) => !covered.has(e.name)).map((e) => e.name) };
}

/** The snapshots whose documents and changes tables the next build over `catalogue` reads (loadHistoryState). */
export async function historyReads(
  catalogue: readonly CatalogueEntry[],
  cacheDir: string,
): Promise<string[]> {
  return (await cachedState(join(cacheDir, HISTORY_DIR), catalogue)).todo;
}

/**
 * Creates the history tables (h_documents, h_pld_documents, h_pld_first) in `connection` as the
 * totals over every snapshot of `catalogue`. The totals are kept in `cacheDir/history` with the
 * list of snapshots they cover: when every covered snapshot is still published with the same
 * manifest, only the snapshots not covered are read and added; otherwise (one vanished or was
 * republished) the totals are rebuilt from all. So a rebuild reads the new snapshots' Parquet only.
 */
export async function loadHistoryState(
  connection: DuckDBConnection,
  root: string,
  catalogue: readonly CatalogueEntry[],
  cacheDir: string,
): Promise<void> {
  const dir = join(cacheDir, HISTORY_DIR);
  const { old, usable, todo } = await cachedState(dir, catalogue);
  for (const [table, columns] of Object.entries(TABLES) as [StateTable, string][]) {
    await connection.run(`CREATE OR REPLACE TEMP TABLE ${table} (${columns})`);
    if (usable && old)
      await connection.run(
        `INSERT INTO ${table} SELECT * FROM read_parquet(${sqlString(stateFile(dir, table, old.id))})`,
      );
  }
  for (let i = 0; i < todo.length; i += FOLD) {
    const sql = foldSql(root, todo.slice(i, i + FOLD));
    for (const table of Object.keys(TABLES) as StateTable[])
      await connection.run(
        `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT ${COMBINE[table]}
         FROM (FROM ${table} UNION ALL (${sql[table]})) GROUP BY ${KEYS[table]}`,
      );
  }
  if (todo.length === 0 && usable) return;
  const covers = catalogue.map((e) => [e.name, e.manifestSha256] as const);
  const id = createHash('sha256').update(JSON.stringify(covers)).digest('hex').slice(0, 16);
  makeDirectory(dir, 'the portal cache folder');
  for (const table of Object.keys(TABLES) as StateTable[])
    await connection.run(
      `COPY (FROM ${table} ORDER BY ${KEYS[table]}) TO ${sqlString(stateFile(dir, table, id))} (FORMAT parquet)`,
    );
  // the key names the files only once they are all written; then the old files go
  await writeFileAtomic(join(dir, HISTORY_KEY_FILE), JSON.stringify({ version: STATE_VERSION, covers, id }));
  if (old && old.id !== id)
    for (const table of Object.keys(TABLES) as StateTable[])
      await rm(stateFile(dir, table, old.id), { force: true });
}
