import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { manualClock, type SnapshotKind } from '../../pipeline/core/index.ts';
import { openDuckDb } from '../../pipeline/snapshot/duckdb-session.ts';
import { listSnapshots, publishSnapshot, readManifest, snapshotName } from '../../pipeline/snapshot/index.ts';
import { source, WEEK1, week1 } from './sample-crawl.ts';

let root: string;
let folder: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'snapshot-publish-'));
  const published = await publishSnapshot({
    root,
    name: snapshotName('weekly', WEEK1),
    kind: 'weekly',
    startedAt: WEEK1,
    endedAt: WEEK1 + 3_600_000,
    config: { concurrency: 64 },
    documents: source(week1()),
    clock: manualClock(WEEK1 + 7_200_000),
  });
  folder = published.folder;
});
after(() => rm(root, { recursive: true, force: true }));

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const session = await openDuckDb();
  try {
    return (await session.connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    session.close();
  }
}

test('the folder holds exactly the documented files and nothing is left in .incomplete', async () => {
  assert.equal(folder, join(root, '2026-11-16'));
  assert.deepEqual((await readdir(folder)).sort(), [
    'SHA256SUMS',
    'changes.parquet',
    'data.nq.gz',
    'delta.parquet',
    'digest.json',
    'documents.parquet',
    'manifest.json',
    'quads.parquet',
    'redirects.parquet',
    'schedule.parquet',
  ]);
  assert.deepEqual(await readdir(join(root, '.incomplete')), []);
});

test('documents.parquet has one row per URL, sorted by url, with every column', async () => {
  const rows = await query(`SELECT * FROM read_parquet('${folder}/documents.parquet')`);
  assert.deepEqual(
    rows.map((r) => r.url),
    [
      'http://example.org/a',
      'http://example.org/b',
      'http://example.org/c',
      'http://example.org/d',
      'http://example.org/e',
      'http://example.org/h',
      'http://other.example.net/f',
    ],
  );
  const d = rows[3];
  assert.equal(d.snapshot, '2026-11-16');
  assert.equal(d.snapshot_start, '2026-11-16 00:00:00+00');
  assert.equal(d.kind, 'weekly');
  assert.equal(d.final_url, 'https://www.example.org/d2');
  assert.equal(d.downloaded_by, 'http://example.org/d');
  assert.equal(d.pld, 'example.org');
  assert.equal(d.fetched_at, '2026-11-16 00:01:03+00');
  assert.equal(d.redirects, 2);
  assert.equal(d.format, 'ntriples');
  assert.deepEqual(d.headers, [
    { key: 'content-type', value: 'application/n-triples' },
    { key: 'x-ünïcode', value: 'välue' },
  ]);
  const a = rows[0];
  assert.equal(a.etag, '"v1"');
  assert.equal(a.last_modified, 'Mon, 16 Nov 2026 00:00:00 GMT');
  assert.equal(a.statements, '5');
  assert.equal(a.graph_hash, 'hash-a1');
  assert.equal(a.content_sha256, 'c'.repeat(64));
  assert.equal(a.duration_ms, '120');
  const f = rows[6];
  assert.equal(f.status, null);
  assert.equal(f.error, 'timeout');
  assert.equal(f.error_message, 'no response within 120 s');
  assert.equal(f.segment, 'adaptive');
  assert.equal(f.round, 2);
  assert.deepEqual(f.headers, []);
});

test('quads.parquet holds every statement in its document graph, sorted by graph then subject', async () => {
  const rows = await query(`SELECT * FROM read_parquet('${folder}/quads.parquet')`);
  assert.equal(rows.length, 15);
  const keys = rows.map((r) => `${r.graph} ${r.subject}`);
  assert.deepEqual(keys, [...keys].sort());
  const name = rows.find((r) => r.lang === 'de');
  assert.deepEqual(name, {
    snapshot: '2026-11-16',
    snapshot_start: '2026-11-16 00:00:00+00',
    kind: 'weekly',
    graph: 'http://example.org/a',
    subject: 'http://example.org/a',
    predicate: 'http://xmlns.com/foaf/0.1/name',
    object: 'Zürich',
    object_kind: 'literal',
    datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString',
    lang: 'de',
    direction: null,
    source_graph: null,
  });
  assert.ok(rows.some((r) => r.graph === 'https://www.example.org/d2'));
  assert.equal(rows.filter((r) => r.object_kind === 'bnode').length, 3);
  assert.equal(
    rows.find((r) => r.object_kind === 'iri' && String(r.predicate).endsWith('knows'))?.datatype,
    null,
  );
});

test('redirects.parquet has one row per hop', async () => {
  const rows = await query(`SELECT * FROM read_parquet('${folder}/redirects.parquet')`);
  assert.deepEqual(rows, [
    {
      snapshot: '2026-11-16',
      snapshot_start: '2026-11-16 00:00:00+00',
      kind: 'weekly',
      url: 'http://example.org/d',
      hop: 1,
      from_url: 'http://example.org/d',
      to_url: 'https://example.org/d',
      status: 301,
      at: '2026-11-16 00:01:03+00',
    },
    {
      snapshot: '2026-11-16',
      snapshot_start: '2026-11-16 00:00:00+00',
      kind: 'weekly',
      url: 'http://example.org/d',
      hop: 2,
      from_url: 'https://example.org/d',
      to_url: 'https://www.example.org/d2',
      status: 303,
      at: '2026-11-16 00:01:03.1+00',
    },
  ]);
});

test('the first snapshot has no previous observations and an empty schedule with the schema', async () => {
  const changes = await query(`SELECT * FROM read_parquet('${folder}/changes.parquet')`);
  assert.equal(changes.length, 7);
  assert.ok(changes.every((c) => c.previous_snapshot === null && c.changed === null && c.added === null));
  const schedule = await query(`DESCRIBE SELECT * FROM read_parquet('${folder}/schedule.parquet')`);
  assert.deepEqual(
    schedule.map((c) => c.column_name),
    ['snapshot', 'snapshot_start', 'kind', 'url', 'level', 'interval_ms', 'next_due', 'strategy', 'state'],
  );
});

test('data.nq.gz is valid N-Quads (serdi) with the same quads in the same order as quads.parquet', async () => {
  const nq = execFileSync('gzip', ['-dc', join(folder, 'data.nq.gz')], { encoding: 'utf8' });
  const serdi = spawnSync('serdi', ['-i', 'nquads', '-o', 'nquads', '-'], { input: nq, encoding: 'utf8' });
  assert.equal(serdi.status, 0, serdi.stderr);
  const lines = nq.trimEnd().split('\n');
  assert.equal(lines.length, 15);
  const graphs = lines.map((l) => l.slice(l.lastIndexOf(' <') + 2, -3));
  const rows = await query(`SELECT graph FROM read_parquet('${folder}/quads.parquet')`);
  assert.deepEqual(
    graphs,
    rows.map((r) => r.graph),
  );
  assert.ok(nq.includes('"Zürich \\"quoted\\" \\\\ back\\nslash" <http://example.org/a> .'));
  assert.ok(nq.includes('<http://example.org/ä/b%20c>'));
  assert.ok(nq.includes('"42"^^<http://www.w3.org/2001/XMLSchema#integer>'));
});

test('SHA256SUMS passes sha256sum -c and the manifest records files, counts and stats', async () => {
  const check = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: folder, encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.equal(check.stdout.trim().split('\n').length, 9);
  const manifest = await readManifest(folder);
  assert.equal(manifest.kind, 'weekly');
  assert.equal(manifest.startedAt, '2026-11-16T00:00:00.000Z');
  assert.equal(manifest.schemaVersion, 6);
  assert.deepEqual(manifest.config, { concurrency: 64 });
  assert.deepEqual(manifest.counts, { documents: 7, statements: 15, redirects: 2, changes: 7, schedule: 0 });
  assert.equal(manifest.files.find((f) => f.name === 'quads.parquet')?.rows, 15);
  const s = manifest.stats;
  assert.deepEqual(s.byStatus, { '200': 6, none: 1 });
  assert.deepEqual(s.byError, { timeout: 1, none: 6 });
  assert.deepEqual(s.bySegment, { adaptive: 2, kernel: 5 });
  assert.deepEqual(s.plds, {
    total: 2,
    top: [
      { key: 'example.org', count: 6 },
      { key: 'example.net', count: 1 },
    ],
  });
  assert.equal(s.distinctBlankNodes, 3);
  assert.equal(s.distinctClasses, 2);
  assert.equal(s.literals, 8);
  assert.equal(s.redirectHops, 2);
  assert.equal(s.changes.new, 7);
  assert.equal(s.bytes, 6 * 512);
});

test('index.json lists the snapshot once; republishing the same input is a no-op', async () => {
  const again = await publishSnapshot({
    root,
    name: '2026-11-16',
    kind: 'weekly',
    startedAt: WEEK1,
    endedAt: WEEK1 + 3_600_000,
    config: { concurrency: 64 },
    documents: source(week1().reverse()),
    clock: manualClock(WEEK1 + 9_000_000),
  });
  assert.equal(again.alreadyPublished, true);
  const entries = await listSnapshots(root);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].publishedAt, '2026-11-16T02:00:00.000Z');
  assert.equal(entries[0].documents, 7);
  const index = JSON.parse(await readFile(join(root, 'index.json'), 'utf8'));
  assert.equal(index.snapshots[0].manifestSha256.length, 64);
});

test('publishing other content under a published name is refused', async () => {
  await assert.rejects(
    publishSnapshot({
      root,
      name: '2026-11-16',
      kind: 'weekly',
      startedAt: WEEK1,
      endedAt: WEEK1 + 3_600_000,
      config: { concurrency: 32 },
      documents: source(week1()),
      clock: manualClock(0),
    }),
    { code: 'invalid_input', message: /already published .* different crawl/ },
  );
});

test('weekly, interval and expand crawls publish, each under its own name form', async () => {
  const cases: [string, string, RegExp][] = [
    ['2026-11-16T1030Z', 'daily', /snapshot kind: expected weekly or interval or expand/],
    [
      'expand-2026-11-16T1030Z',
      'interval',
      /snapshot name: expected YYYY-MM-DD or YYYY-MM-DDTHHMMZ or YYYY-MM-DDTHHMMZ-expand-N/,
    ],
    ['2026-11-23T1030Z', 'weekly', /weekly snapshot name: expected YYYY-MM-DD,/],
    ['2026-11-23', 'interval', /interval snapshot name: expected YYYY-MM-DDTHHMMZ,/],
    ['2026-11-23T1030Z', 'expand', /expand snapshot name: expected YYYY-MM-DDTHHMMZ-expand-N,/],
    ['2026-11-23T1030Z-expand-0', 'expand', /snapshot name: expected/],
    // an expand snapshot says which crawl of which expansion it is; the others do not
    [
      '2026-11-23T1030Z-expand-1',
      'expand',
      /expansion: expected which crawl of an expansion, for kind expand only/,
    ],
  ];
  for (const [name, kind, message] of cases) {
    await assert.rejects(
      publishSnapshot({
        root,
        name,
        // the kind arrives unchecked from a caller that bypasses the types
        kind: kind as SnapshotKind,
        startedAt: WEEK1,
        endedAt: WEEK1 + 3_600_000,
        config: {},
        documents: source(week1()),
        clock: manualClock(WEEK1),
      }),
      { code: 'invalid_input', message },
    );
  }
  assert.deepEqual(
    (await listSnapshots(root)).map((s) => s.name),
    ['2026-11-16'],
  );
});
