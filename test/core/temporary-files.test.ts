import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { ObservatoryError, replaceFile } from '../../pipeline/core/index.ts';
import { writeFileAtomic } from '../../pipeline/snapshot/index.ts';
import { deadPid } from './dead-pid.ts';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'temporaries-'));
  dirs.push(dir);
  return dir;
}

test("an atomic write removes the temporaries killed writers left, and keeps a live writer's", async () => {
  const dir = await freshDir();
  const dead = `index.json.tmp-${deadPid()}`;
  const live = `index.json.tmp-${process.ppid}`;
  const other = `other.json.tmp-${deadPid()}`;
  // `.tmp`: the one name versions before one temporary name gave the coordinator's crawl id
  const older = 'index.json.tmp';
  for (const name of [dead, live, other, older, 'index.json.tmp-x']) await writeFile(join(dir, name), '{');
  await writeFileAtomic(join(dir, 'index.json'), '[]\n');
  assert.deepEqual((await readdir(dir)).sort(), ['index.json', 'index.json.tmp-x', live, other].sort());
  assert.equal(await readFile(join(dir, 'index.json'), 'utf8'), '[]\n');
});

test('a file DuckDB writes (COPY TO the temporary) replaces the old one whole; a failed COPY leaves the old one', async () => {
  const dir = await freshDir();
  const path = join(dir, 'table.parquet');
  await writeFile(path, 'old');
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const copy = (sql: string) => (temporary: string) =>
      db.run(`COPY (${sql}) TO '${temporary}' (FORMAT parquet)`).then(() => {});
    await replaceFile(path, copy('SELECT range AS n FROM range(1000)'));
    const [[count]] = (await db.runAndReadAll(`SELECT count(*) FROM read_parquet('${path}')`)).getRows();
    assert.equal(Number(count), 1000);
    const before = await readFile(path);
    await assert.rejects(
      replaceFile(path, copy("SELECT error('the writer failed') AS n")),
      (error) =>
        error instanceof ObservatoryError &&
        error.code === 'io' &&
        error.message.includes(`cannot write ${path}`),
    );
    assert.deepEqual(await readFile(path), before, 'the old file is untouched');
    assert.deepEqual(await readdir(dir), ['table.parquet'], 'no temporary is left');
  } finally {
    db.closeSync();
  }
});
