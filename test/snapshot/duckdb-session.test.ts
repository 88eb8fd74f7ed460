import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { openDuckDb, queryRows, sqlString, verifySnapshot } from '../../pipeline/snapshot/index.ts';

const child = new URL('./publish-child.ts', import.meta.url).pathname;
const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'duckdb-session-'));
  roots.push(root);
  return root;
}

const SETTINGS = `SELECT current_setting('memory_limit') = format_bytes(64000000), current_setting('temp_directory'),
  current_setting('preserve_insertion_order')`;

test('a session takes the memory limit, spill folder and insertion order it is given', async () => {
  const spill = join(await tempRoot(), 'spill');
  const session = await openDuckDb({
    memoryLimit: '64MB',
    tempDirectory: spill,
    preserveInsertionOrder: false,
  });
  try {
    assert.deepEqual(await queryRows(session.connection, SETTINGS), [[true, spill, false]]);
  } finally {
    session.close();
  }
});

test('a session without a spill folder gets its own under the system temp directory, removed on close', async () => {
  const session = await openDuckDb({ memoryLimit: '64MB' });
  const [[limited, spill]] = await queryRows(session.connection, SETTINGS);
  session.close();
  assert.equal(limited, true);
  assert.ok(String(spill).startsWith(join(tmpdir(), 'observatory-duckdb-')), String(spill));
  assert.equal(existsSync(String(spill)), false);
});

test('memory limits are checked before DuckDB sees them', async () => {
  for (const limit of ['lots', '512', '15MB', '-1GB', '1 PB']) {
    await assert.rejects(openDuckDb({ memoryLimit: limit }), { code: 'invalid_input' }, limit);
  }
});

test('the operator variable sets the limit of every session; a bad value stops any command at start', () => {
  const script = `import { openDuckDb, queryRows } from ${JSON.stringify(new URL('../../pipeline/snapshot/index.ts', import.meta.url).pathname)};
    const s = await openDuckDb(); process.stdout.write(String((await queryRows(s.connection, "SELECT current_setting('memory_limit')"))[0][0])); s.close();`;
  const env = (limit: string) => ({ ...process.env, OBSERVATORY_DUCKDB_MEMORY_LIMIT: limit });
  const session = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: env('1GiB'),
  });
  assert.equal(session.stdout, '1.0 GiB', session.stderr);
  const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
  const bad = spawnSync(process.execPath, [cli, 'verify', tmpdir()], { encoding: 'utf8', env: env('lots') });
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /OBSERVATORY_DUCKDB_MEMORY_LIMIT: expected a memory size/);
});

test('a publish under a 96MB DuckDB limit spills its sorts and still publishes a sorted snapshot that verifies', async () => {
  const root = await tempRoot();
  // 456,000 statements: under 96MB DuckDB spills ~62 MiB to publish.duckdb.tmp (watched once by
  // hand); at 64MB the quads COPY fails, its sorted run and Parquet row group not fitting together
  const run = spawnSync(process.execPath, [child, root, '40000'], {
    encoding: 'utf8',
    env: { ...process.env, OBSERVATORY_DUCKDB_MEMORY_LIMIT: '96MB' },
  });
  assert.equal(run.status, 0, run.stderr);
  const folder = join(root, '2026-11-16');
  assert.equal((await verifySnapshot(folder)).quads, 456_000);
  assert.deepEqual(await readdir(join(root, '.incomplete')), [], 'the spill folder went with the publish');

  // the session let DuckDB reorder unsorted results: the files must still be in the published order
  const session = await openDuckDb();
  try {
    const [[descents]] = await queryRows(
      session.connection,
      `SELECT count(*) FILTER (WHERE (graph, subject, predicate, object) < previous) FROM (
        SELECT graph, subject, predicate, object,
          lag((graph, subject, predicate, object)) OVER (ORDER BY file_row_number) AS previous
        FROM read_parquet(${sqlString(join(folder, 'quads.parquet'))}, file_row_number = true))`,
    );
    assert.equal(Number(descents), 0, 'quads.parquet is sorted');
  } finally {
    session.close();
  }
  const graphs = gunzipSync(await readFile(join(folder, 'data.nq.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => /<([^>]*)> \.$/.exec(line)![1]);
  assert.equal(graphs.length, 456_000);
  assert.ok(
    graphs.every((g, i) => i === 0 || graphs[i - 1] <= g),
    'data.nq.gz follows quads.parquet',
  );
});
