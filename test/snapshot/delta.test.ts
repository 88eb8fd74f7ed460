/**
 * delta.parquet: the statements a changed document gained and lost against its previous
 * observation, with blank nodes in their canonical (RDFC-1.0) form, checked row by row on two
 * hand-made weeks; verify holds it to changes.parquet.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Statement } from '../../pipeline/core/index.ts';
import { canonicalGraph } from '../../pipeline/rdf/index.ts';
import { statementLine } from '../../pipeline/rdf/nquads-writer.ts';
import {
  EMPTY_DELTA,
  openDuckDb,
  publishedDigest,
  queryRows,
  readManifest,
  SNAPSHOT_SCHEMA_VERSION,
  sqlString,
  verifySnapshot,
} from '../../pipeline/snapshot/index.ts';
import { relist } from './relist.ts';
import { iri, publishWeek, record, source, WEEK1, WEEK2 } from './sample-crawl.ts';

const FOAF = 'http://xmlns.com/foaf/0.1/';
const GEO = 'http://www.w3.org/2003/01/geo/wgs84_pos#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const X = 'http://example.org/x';
const Y = 'http://data.example.net/y';
const Z = 'http://example.org/z';

const lit = (subject: string, predicate: string, object: string): Statement => ({
  subject,
  predicate,
  object,
  objectKind: 'literal',
  datatype: XSD_STRING,
  lang: null,
});

/** X changes class and link and its one blank node gains a statement; Y loses a name; Z's two blank nodes swap numbers. */
const versions = {
  x1: (b: string) => [
    iri(X, RDF_TYPE, `${FOAF}Person`),
    iri(X, `${FOAF}knows`, 'http://other.example.net/p'),
    lit(X, `${FOAF}name`, 'X'),
    iri(X, `${FOAF}based_near`, `_:${b}`),
    lit(`_:${b}`, `${FOAF}name`, 'Place'),
  ],
  x2: (b: string) => [
    iri(X, RDF_TYPE, `${FOAF}Agent`),
    iri(X, `${FOAF}knows`, 'https://Third.example.com:8443/q'),
    lit(X, `${FOAF}name`, 'X'),
    iri(X, `${FOAF}based_near`, `_:${b}`),
    lit(`_:${b}`, `${FOAF}name`, 'Place'),
    lit(`_:${b}`, `${GEO}lat`, '1.5'),
  ],
  y1: [lit(Y, `${FOAF}name`, 'Y'), lit(Y, `${FOAF}nick`, 'why')],
  y2: [lit(Y, `${FOAF}name`, 'Y')],
  z1: (a: string, b: string) => [
    iri(Z, `${FOAF}knows`, `_:${a}`),
    iri(Z, `${FOAF}knows`, `_:${b}`),
    lit(`_:${a}`, `${FOAF}name`, 'Ann'),
    lit(`_:${b}`, `${FOAF}name`, 'Bob'),
  ],
  z2: (a: string, b: string) => [
    iri(Z, `${FOAF}knows`, `_:${a}`),
    iri(Z, `${FOAF}knows`, `_:${b}`),
    lit(`_:${a}`, `${FOAF}name`, 'Ann'),
    lit(`_:${b}`, `${FOAF}name`, 'Bob'),
    lit(`_:${a}`, `${FOAF}nick`, 'Bobby'),
  ],
};

function documents(week: number) {
  const t = (week === 1 ? WEEK1 : WEEK2) + 60_000;
  const doc = (url: string, statements: Statement[], hash: string) => ({
    record: { ...record(url, t, { graphHash: hash }), statements: statements.length },
    statements,
  });
  return week === 1
    ? [doc(X, versions.x1('w1a'), 'x1'), doc(Y, versions.y1, 'y1'), doc(Z, versions.z1('w1a', 'w1b'), 'z1')]
    : [doc(X, versions.x2('w2q'), 'x2'), doc(Y, versions.y2, 'y2'), doc(Z, versions.z2('w2q', 'w2r'), 'z2')];
}

let root: string;
let rows: string[][];

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'snapshot-delta-'));
  await publishWeek(root, WEEK1, source(documents(1)));
  await publishWeek(root, WEEK2, source(documents(2)));
  rows = await query(
    `SELECT url, graph, previous_snapshot, op, subject, predicate, object, object_kind, datatype
     FROM read_parquet(${sqlString(join(root, '2026-11-23', 'delta.parquet'))})`,
  );
});
after(() => rm(root, { recursive: true, force: true }));

async function query(sql: string): Promise<string[][]> {
  const session = await openDuckDb();
  try {
    return (await queryRows(session.connection, sql)).map((r) =>
      r.map((v) => (v === null ? '∅' : String(v))),
    );
  } finally {
    session.close();
  }
}

test('the rows of a changed document: its class and link swapped, its blank node one statement more', () => {
  const head = [X, X, '2026-11-16'];
  assert.deepEqual(
    rows.filter((r) => r[0] === X),
    [
      [...head, 'added', '_:c14n0', `${GEO}lat`, '1.5', 'literal', XSD_STRING],
      [...head, 'added', X, RDF_TYPE, `${FOAF}Agent`, 'iri', '∅'],
      [...head, 'added', X, `${FOAF}knows`, 'https://Third.example.com:8443/q', 'iri', '∅'],
      [...head, 'removed', X, RDF_TYPE, `${FOAF}Person`, 'iri', '∅'],
      [...head, 'removed', X, `${FOAF}knows`, 'http://other.example.net/p', 'iri', '∅'],
    ],
  );
  // the first delta of week 1 is empty: a first observation has nothing to compare with
  assert.deepEqual(
    rows.filter((r) => r[3] !== 'added' && r[3] !== 'removed'),
    [],
  );
});

test('a removed statement only, and the counts of changes.parquet, row for row', async () => {
  assert.deepEqual(
    rows.filter((r) => r[0] === Y).map((r) => [r[3], r[5], r[6]]),
    [['removed', `${FOAF}nick`, 'why']],
  );
  const counts = await query(
    `SELECT c.url, c.added, c.removed, count(*) FILTER (op = 'added'), count(*) FILTER (op = 'removed')
     FROM read_parquet(${sqlString(join(root, '2026-11-23', 'changes.parquet'))}) AS c
     JOIN read_parquet(${sqlString(join(root, '2026-11-23', 'delta.parquet'))}) AS d USING (url)
     GROUP BY ALL ORDER BY 1`,
  );
  assert.deepEqual(
    counts.map(([url, added, removed, rowsAdded, rowsRemoved]) => [
      url,
      added === rowsAdded && removed === rowsRemoved,
    ]),
    [
      [Y, true],
      [X, true],
      [Z, true],
    ],
  );
  assert.deepEqual(counts.slice(0, 2), [
    [Y, '0', '1', '0', '1'],
    [X, '3', '2', '3', '2'],
  ]);
});

test('blank nodes carry the labels of each version canonicalised on its own: the rows are the difference of the canonical lines', async () => {
  const line = (r: string[]) =>
    statementLine({
      subject: r[4],
      predicate: r[5],
      object: r[6],
      objectKind: r[7] as Statement['objectKind'],
      datatype: r[8] === '∅' ? null : r[8],
      lang: null,
    });
  const before = new Set((await canonicalGraph(versions.z1('p', 'q'))).lines);
  const now = new Set((await canonicalGraph(versions.z2('s', 't'))).lines);
  const z = rows.filter((r) => r[0] === Z);
  assert.deepEqual(
    z.filter((r) => r[3] === 'added').map(line),
    [...now].filter((l) => !before.has(l)),
  );
  assert.deepEqual(
    z.filter((r) => r[3] === 'removed').map(line),
    [...before].filter((l) => !now.has(l)),
  );
  // Ann's new statement changes the hashes RDFC-1.0 numbers the blank nodes by, and the two swap
  // numbers: their names count as removed and added too (the example of docs/data-dictionary.md)
  assert.deepEqual(
    z.map((r) => [r[3], r[4], r[5].slice(FOAF.length), r[6]]),
    [
      ['added', '_:c14n0', 'name', 'Ann'],
      ['added', '_:c14n0', 'nick', 'Bobby'],
      ['added', '_:c14n1', 'name', 'Bob'],
      ['removed', '_:c14n0', 'name', 'Bob'],
      ['removed', '_:c14n1', 'name', 'Ann'],
    ],
  );
});

test('verify holds delta.parquet to changes.parquet: a row moved from added to removed is corrupt', async () => {
  const folder = join(root, 'damaged', '2026-11-23');
  await cp(join(root, '2026-11-23'), folder, { recursive: true });
  const file = join(folder, 'delta.parquet');
  const session = await openDuckDb();
  try {
    await session.connection.run(`COPY (SELECT * REPLACE (CASE WHEN url = ${sqlString(Y)} THEN 'added' ELSE op END AS op)
        FROM read_parquet(${sqlString(file)})) TO ${sqlString(`${file}.new`)}
      (FORMAT parquet, KV_METADATA {observatory_schema_version: '${SNAPSHOT_SCHEMA_VERSION}'})`);
  } finally {
    session.close();
  }
  await rm(file);
  await cp(`${file}.new`, file);
  await rm(`${file}.new`);
  relist(folder, ['delta.parquet']);
  await verifySnapshot(join(root, '2026-11-23'));
  await assert.rejects(verifySnapshot(folder), {
    code: 'corrupt',
    message:
      /delta\.parquet has 1 added and 0 removed rows of http:\/\/data\.example\.net\/y, changes\.parquet says 0 and 1/,
  });
});

test("the data dictionary's delta queries give the digest's figures, which the portal sums", async () => {
  const run = async (file: string) => {
    const sql = await readFile(new URL(`../../docs/queries/${file}`, import.meta.url), 'utf8');
    return query(sql.replaceAll("'snapshots/", `'${root}/`));
  };
  const { delta } = JSON.parse(await readFile(join(root, '2026-11-23', 'digest.json'), 'utf8'));
  const counts = (list: Array<{ key: string; added: number; removed: number }>) =>
    list.map((c) => [c.key, String(c.added), String(c.removed)]);
  const terms = await run('delta-terms.sql');
  const of = (kind: string) => terms.filter((r) => r[0] === kind).map((r) => r.slice(1, 4));
  assert.deepEqual(of('class'), [
    [`${FOAF}Agent`, '1', '0'],
    [`${FOAF}Person`, '0', '1'],
  ]);
  assert.deepEqual(of('link target'), [
    ['other.example.net', '0', '1'],
    ['third.example.com', '1', '0'],
  ]);
  assert.deepEqual(counts(delta.classes), of('class'));
  assert.deepEqual(counts(delta.linkTargets), of('link target'));
  assert.deepEqual(counts(delta.predicates), of('predicate'));
  assert.deepEqual(
    delta.plds.map((p: { pld: string; documents: number; added: number; removed: number }) =>
      [p.pld, p.documents, p.added, p.removed].map(String),
    ),
    (await run('delta-churn-per-pld.sql')).map((r) => r.slice(1)),
  );
  assert.equal(delta.documents, 3);
  assert.deepEqual(
    [delta.typesAdded, delta.typesRemoved, delta.linksAdded, delta.linksRemoved],
    [1, 1, 1, 1],
  );
});

test('a folder of schema 4 (no delta.parquet, a digest of version 3) verifies, and its digest is read with an empty delta', async () => {
  // week two as schema 4 published it: its tables, their metadata and its digest without the delta
  const folder = join(root, 'schema-4', '2026-11-23');
  await cp(join(root, '2026-11-23'), folder, { recursive: true });
  const tables = ['documents', 'quads', 'redirects', 'changes', 'schedule'].map((t) => `${t}.parquet`);
  const session = await openDuckDb();
  try {
    for (const name of tables) {
      const file = sqlString(join(folder, name));
      const copy = sqlString(join(folder, `${name}.v4`));
      await session.connection.run(`COPY (SELECT * FROM read_parquet(${file})) TO ${copy}
        (FORMAT parquet, COMPRESSION zstd, KV_METADATA {observatory_schema_version: '4'})`);
      await rm(join(folder, name));
      await cp(join(folder, `${name}.v4`), join(folder, name));
      await rm(join(folder, `${name}.v4`));
    }
  } finally {
    session.close();
  }
  await rm(join(folder, 'delta.parquet'));
  const { delta, digestVersion, ...rest } = JSON.parse(await readFile(join(folder, 'digest.json'), 'utf8'));
  assert.equal(digestVersion, 4);
  assert.ok(delta.added > 0);
  const v3 = `${JSON.stringify({ digestVersion: 3, ...rest })}\n`;
  await writeFile(join(folder, 'digest.json'), v3);
  const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
  manifest.schemaVersion = 4;
  manifest.files = manifest.files.filter((f: { name: string }) => f.name !== 'delta.parquet');
  await writeFile(join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const sums = await readFile(join(folder, 'SHA256SUMS'), 'utf8');
  await writeFile(join(folder, 'SHA256SUMS'), sums.replace(/^.* {2}delta\.parquet\n/m, ''));
  relist(folder, [...tables, 'digest.json']);

  await verifySnapshot(folder);
  const read = await publishedDigest(folder, await readManifest(folder));
  assert.deepEqual(read, { ...rest, delta: EMPTY_DELTA });
  // still compared with its tables in its own form: a changed figure is caught
  await writeFile(
    join(folder, 'digest.json'),
    v3.replace(`"available":${rest.available}`, `"available":${rest.available + 1}`),
  );
  relist(folder, ['digest.json']);
  await assert.rejects(verifySnapshot(folder), {
    code: 'corrupt',
    message: /digest\.json is not the digest/,
  });
});
