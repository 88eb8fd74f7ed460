/**
 * The report over folders of older schemas: every query it shows runs as written on the published
 * files and gives the figure's data, whether the folders are of schema 1 (the real fixture of
 * test/snapshot/fixtures), 2, 3, or a mix of them.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { manualClock } from '../../pipeline/core/index.ts';
import { openDuckDb, publishSnapshot, queryRows, sqlString } from '../../pipeline/snapshot/index.ts';
import { type RoundsChoice, writeReport } from '../../pipeline/stats/index.ts';
import { source, WEEK2, week2 } from '../snapshot/sample-crawl.ts';

const FIXTURE = new URL('../snapshot/fixtures/schema-1/', import.meta.url).pathname;
const V1 = '2026-11-16';
const LATER = '2026-11-23';

let work: string;

/** A folder of `snapshots/` beside the others, holding the schema-1 fixture and, given `later`, a later week of that schema. */
async function folder(name: string, later: 1 | 2 | 3 | null): Promise<string> {
  const root = join(work, name, 'snapshots');
  await cp(FIXTURE, root, { recursive: true });
  if (later === null) return root;
  await publishSnapshot({
    root,
    name: LATER,
    kind: 'weekly',
    startedAt: WEEK2,
    endedAt: WEEK2 + 3_600_000,
    config: {},
    documents: source(week2()),
    clock: manualClock(WEEK2 + 7_200_000),
  });
  if (later === 2) {
    // schema 2 is schema 3 without the archive's and conditional re-visits' columns
    const documents = join(root, LATER, 'documents.parquet');
    const session = await openDuckDb();
    try {
      await session.connection.run(
        `COPY (SELECT * EXCLUDE (warc_filename, warc_offset, warc_length, validation, carried_from)
           FROM read_parquet(${sqlString(documents)})) TO ${sqlString(`${documents}.v2`)} (FORMAT parquet)`,
      );
    } finally {
      session.close();
    }
    await rename(`${documents}.v2`, documents);
    const manifestFile = join(root, LATER, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    await writeFile(manifestFile, JSON.stringify({ ...manifest, schemaVersion: 2 }));
  }
  return root;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'report-schemas-'));
});
after(() => rm(work, { recursive: true, force: true }));

/** Writes the report over `root` and runs each query it shows on the published files. */
async function shownAgainstFigures(root: string, rounds: RoundsChoice) {
  const { reproductions } = await writeReport({
    root,
    out: join(root, '..', 'report'),
    evaluation: null,
    estimation: null,
    rounds,
  });
  const session = await openDuckDb();
  try {
    // the queries name the files relative to the folder that holds snapshots/
    await session.connection.run(`SET file_search_path = ${sqlString(join(root, '..'))}`);
    const run = async (query: string) =>
      (await queryRows(session.connection, query)).map((r) =>
        r.map((v) => (typeof v === 'string' ? v : Number(v))),
      );
    const figure = (id: string) => reproductions.find((r) => r.id === id)!;
    const rounds = await run(figure('dyldo-figure-2').query);
    assert.deepEqual(
      rounds.map((r) => r.slice(0, 5)),
      figure('dyldo-figure-2').table.rows,
    );
    assert.deepEqual(
      rounds.map((r) => [...r.slice(0, 2), ...r.slice(5)]),
      figure('dyldo-figure-3').table.rows,
    );
    for (const id of ['dyldo-figure-4', 'dyldo-figure-6'])
      assert.deepEqual(await run(figure(id).query), figure(id).table.rows, id);
    const top = await run(figure('dyldo-table-4').query);
    assert.deepEqual(
      top.map(([pld, n]) => [pld, n]),
      figure('dyldo-table-4').table.rows.map(([pld, n]) => [pld, n]),
    );
    return reproductions;
  } finally {
    session.close();
  }
}

test('over a schema-1 folder alone, every shown query runs as written and gives its figure', async () => {
  const reproductions = await shownAgainstFigures(await folder('v1', null), {});
  const f2 = reproductions.find((r) => r.id === 'dyldo-figure-2')!;
  assert.ok(f2.table.rows.length > 0);
  assert.ok(f2.table.rows.every((r) => r[0] === V1));
  // schema 1 has no downloaded_by: the query shown reads it as the report does, not the file's columns
  assert.match(f2.query, /url AS downloaded_by/);
});

test('over schema 1 with schema 3, and schema 1 with schema 2, the shown queries run as written', async () => {
  for (const [name, later] of [
    ['v1-v3', 3],
    ['v1-v2', 2],
  ] as const) {
    const reproductions = await shownAgainstFigures(await folder(name, later), { weeklyCrawls: 2 });
    const f2 = reproductions.find((r) => r.id === 'dyldo-figure-2')!;
    assert.deepEqual([...new Set(f2.table.rows.map((r) => r[0]))], [V1, LATER], name);
    const f6 = reproductions.find((r) => r.id === 'dyldo-figure-6')!;
    assert.ok(f6.table.rows.length > 0, name);
  }
});

test('over schema-3 folders only, the query shown reads the files as one read_parquet list', async () => {
  const root = await folder('v3', 3);
  await rm(join(root, V1), { recursive: true });
  const index = JSON.parse(await readFile(join(root, 'index.json'), 'utf8'));
  index.snapshots = index.snapshots.filter((e: { name: string }) => e.name !== V1);
  await writeFile(join(root, 'index.json'), JSON.stringify(index));
  const reproductions = await shownAgainstFigures(root, {});
  for (const r of reproductions)
    assert.ok(
      r.query.startsWith(
        `WITH documents AS (SELECT * FROM read_parquet(['snapshots/${LATER}/documents.parquet']))`,
      ),
      r.id,
    );
});
