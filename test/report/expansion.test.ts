/**
 * Expansion crawls downstream of `observatory expand`: two runs (K=2, then K=3) of the simulated Web
 * published into one folder. The report's Figures 2 and 3 show one run's crawls, found by their
 * manifests (also those published before runs were recorded); `observatory reparse` keeps an
 * expansion crawl what it is; the portal's DCAT description lists each crawl with its files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import jsonld from 'jsonld';
import { Parser, type Quad, Store } from 'n3';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import {
  type CatalogueEntry,
  listSnapshots,
  openDuckDb,
  queryRows,
  readManifest,
  sqlString,
} from '../../pipeline/snapshot/index.ts';
import {
  computePortalData,
  type Reproduction,
  statsOptions,
  writeReport,
} from '../../pipeline/stats/index.ts';
import { runCli } from '../commands/cli-process.ts';
import { publishWeek, source, WEEK1, week1 } from '../snapshot/sample-crawl.ts';

const FIRST_RUN = '2026-02-01T0900Z';
const SECOND_RUN = '2026-02-08T0900Z';

let sim: SimWeb;
let work: string;
let root: string;
let runs: Map<string, CatalogueEntry[]>;

async function expand(name: string, now: string, repeat: number): Promise<void> {
  const dir = join(work, name);
  await writeFile(join(work, 'core.txt'), `${sim.coreSeeds.join('\n')}\n`);
  const run = await runCli([
    'expand',
    ...['--seeds', join(work, 'core.txt'), '--kernel', join(dir, 'kernel.txt'), '--work', join(dir, 'work')],
    ...['--out', root, '--repeat', String(repeat), '--hops', '2', '--now', now],
    ...['--resolve', sim.resolveRule, '--allow-private', '--delay', '0.005', '--timeout', '5s'],
    ...['--log-level', 'silent'],
  ]);
  assert.equal(run.status, 0, run.stderr);
}

async function rows(sql: string): Promise<unknown[][]> {
  const session = await openDuckDb();
  try {
    return await queryRows(session.connection, sql);
  } finally {
    session.close();
  }
}

const figure = (reproductions: readonly Reproduction[], id: string) => {
  const f = reproductions.find((r) => r.id === id);
  assert.ok(f, id);
  return f;
};
const crawlsOf = (f: Reproduction) => [...new Set(f.table.rows.map((r) => r[0]))];

before(async () => {
  sim = await startSimWeb({
    seed: 11,
    docs: 120,
    plds: 12,
    latencyScale: 0,
    faults: 0,
    now: Date.UTC(2026, 1, 1),
  });
  work = await mkdtemp(join(tmpdir(), 'report-expansion-'));
  root = join(work, 'snapshots');
  await expand('first', '2026-02-01T09:00:00Z', 2);
  await expand('second', '2026-02-08T09:00:00Z', 3);
  runs = new Map();
  for (const entry of await listSnapshots(root)) {
    const run = (await readManifest(join(root, entry.name))).expansion?.run ?? 'none';
    runs.set(run, [...(runs.get(run) ?? []), entry]);
  }
});

after(async () => {
  await sim.close();
  await rm(work, { recursive: true, force: true });
});

test("each crawl's manifest names its run: the minute its crawl 1 started", () => {
  assert.deepEqual(
    [...runs].map(([run, entries]) => [run, entries.map((e) => e.name)]),
    [
      [FIRST_RUN, [`${FIRST_RUN}-expand-1`, `${FIRST_RUN}-expand-2`]],
      [SECOND_RUN, [1, 2, 3].map((i) => `${SECOND_RUN}-expand-${i}`)],
    ],
  );
});

test("Figures 2 and 3 show exactly the newest run's crawls, with each crawl's rounds as published", async () => {
  const { reproductions } = await writeReport({
    root,
    out: join(work, 'report'),
    evaluation: null,
    estimation: null,
  });
  const second = runs.get(SECOND_RUN)!.map((e) => e.name);
  for (const id of ['dyldo-figure-2', 'dyldo-figure-3']) {
    const f = figure(reproductions, id);
    assert.deepEqual(crawlsOf(f), second, id);
    assert.ok(f.summary.includes(`the 3 crawls of expansion run ${SECOND_RUN}`), f.summary);
  }
  // each crawl's documents per round, counted independently from its own documents table
  const f2 = figure(reproductions, 'dyldo-figure-2');
  for (const name of second) {
    const counted = await rows(
      `SELECT round, count(*) FROM read_parquet(${sqlString(join(root, name, 'documents.parquet'))}) GROUP BY round ORDER BY round`,
    );
    assert.deepEqual(
      f2.table.rows.filter((r) => r[0] === name).map((r) => [r[1], r[2]]),
      counted.map(([round, n]) => [Number(round), Number(n)]),
      name,
    );
  }
});

test('manifests published before runs were recorded are grouped by crawl number into the same runs', async () => {
  const legacy = join(work, 'legacy');
  await cp(root, legacy, { recursive: true });
  for (const entries of runs.values())
    for (const e of entries) {
      const file = join(legacy, e.name, 'manifest.json');
      const manifest = JSON.parse(await readFile(file, 'utf8'));
      delete manifest.expansion.run;
      await writeFile(file, JSON.stringify(manifest));
    }
  for (const [run, entries] of runs) {
    const { reproductions } = await writeReport({
      root: legacy,
      out: join(work, `legacy-${run}`),
      evaluation: null,
      estimation: null,
      rounds: { run },
    });
    assert.deepEqual(
      crawlsOf(figure(reproductions, 'dyldo-figure-2')),
      entries.map((e) => e.name),
    );
  }
});

test('observatory report --expansion picks an older run, and refuses an unknown one naming the runs', async () => {
  const out = join(work, 'older');
  const older = await runCli(['report', '--root', root, '--out', out, '--expansion', FIRST_RUN]);
  assert.equal(older.status, 0, older.stderr);
  const csv = (await readFile(join(out, 'dyldo-figure-3.csv'), 'utf8')).trimEnd().split('\n').slice(1);
  assert.deepEqual(
    [...new Set(csv.map((line) => line.split(',')[0]))],
    runs.get(FIRST_RUN)!.map((e) => e.name),
  );
  const unknown = await runCli([
    'report',
    '--root',
    root,
    '--out',
    join(work, 'never'),
    '--expansion',
    '2026-03-01T0000Z',
  ]);
  assert.notEqual(unknown.status, 0);
  assert.match(unknown.stderr, new RegExp(`--expansion.*${FIRST_RUN}, ${SECOND_RUN}`));
  const otherKind = await runCli([
    ...['report', '--root', root, '--out', join(work, 'never')],
    ...['--expansion', FIRST_RUN, '--rounds-kind', 'weekly'],
  ]);
  assert.notEqual(otherKind.status, 0);
  assert.match(otherKind.stderr, /--expansion: expected --rounds-kind expand/);
  assert.ok(!(await readdir(work)).includes('never'));
});

test('reparse of an expansion crawl keeps its kind, its expansion and its rounds', async () => {
  const entry = runs.get(SECOND_RUN)![1];
  const out = join(work, 'reparsed');
  const run = await runCli(['reparse', join(root, entry.name), '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  const source = await readManifest(join(root, entry.name));
  const rebuilt = await readManifest(join(out, entry.name));
  assert.equal(rebuilt.kind, 'expand');
  assert.deepEqual(rebuilt.expansion, source.expansion);
  assert.equal(rebuilt.reparsedFrom?.snapshot, entry.name);
  assert.deepEqual(rebuilt.counts, source.counts);
  assert.deepEqual(
    (await listSnapshots(out)).map((e) => [e.name, e.kind]),
    [[entry.name, 'expand']],
  );
  const documents = (r: string) => sqlString(join(r, entry.name, 'documents.parquet'));
  const columns = 'url, round, segment, kind, statements, format, downloaded_by';
  const [[onlySource, onlyRebuilt, total]] = await rows(`SELECT
      (SELECT count(*) FROM (SELECT ${columns} FROM read_parquet(${documents(root)}) EXCEPT ALL SELECT ${columns} FROM read_parquet(${documents(out)}))),
      (SELECT count(*) FROM (SELECT ${columns} FROM read_parquet(${documents(out)}) EXCEPT ALL SELECT ${columns} FROM read_parquet(${documents(root)}))),
      (SELECT count(DISTINCT round) FROM read_parquet(${documents(out)}))`);
  assert.deepEqual([Number(onlySource), Number(onlyRebuilt)], [0, 0]);
  assert.ok(Number(total) >= 2, 'the crawl has several rounds');
  // the reparsed crawl is an expansion run of its own folder, as the report reads it
  const { reproductions } = await writeReport({
    root: out,
    out: join(work, 'reparsed-report'),
    evaluation: null,
    estimation: null,
  });
  assert.deepEqual(crawlsOf(figure(reproductions, 'dyldo-figure-2')), [entry.name]);
  assert.match(
    figure(reproductions, 'dyldo-figure-2').summary,
    /the 1 published of the 3 crawls of expansion run/,
  );
});

const BASE = 'https://observatory.example/portal/';
const DCAT = 'http://www.w3.org/ns/dcat#';
const V = 'http://rdfs.org/ns/void#';
const SPDX = 'http://spdx.org/rdf/terms#';
const IANA = 'https://www.iana.org/assignments/media-types/';

/** Checks a parsed description: the expansion series holds every expand crawl, each with its manifest's counts and files. */
async function assertDescribesExpansions(portalRoot: string, quads: Quad[]) {
  const store = new Store(quads);
  const one = (s: string | Quad['object'], p: string) => {
    const objects = store.getObjects(s, p, null);
    assert.equal(objects.length, 1, `${s} ${p}`);
    return objects[0].value;
  };
  const series = `${BASE}downloads/#expansion`;
  const expansions = (await listSnapshots(portalRoot)).filter((e) => e.kind === 'expand');
  assert.equal(expansions.length, 5);
  assert.deepEqual(
    store
      .getObjects(series, `${V}subset`, null)
      .map((o) => o.value)
      .sort(),
    expansions.map((e) => `${BASE}downloads/#${e.name}`).sort(),
  );
  assert.ok(
    store
      .getObjects(series, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type', null)
      .some((o) => o.value === `${DCAT}DatasetSeries`),
  );
  // the observations' series does not take them for observations
  const subsets = store.getObjects(`${BASE}dataset/#series`, `${V}subset`, null).map((o) => o.value);
  assert.deepEqual(subsets, [`${BASE}snapshots/2026-11-16/`]);
  for (const entry of expansions) {
    const manifest = await readManifest(join(portalRoot, entry.name));
    const node = `${BASE}downloads/#${entry.name}`;
    assert.equal(one(node, `${DCAT}inSeries`), series);
    assert.equal(Number(one(node, `${V}triples`)), manifest.counts.statements);
    assert.equal(Number(one(node, `${V}documents`)), manifest.counts.documents);
    const dists = store.getObjects(node, `${DCAT}distribution`, null);
    // the manifest's files, and manifest.json and SHA256SUMS themselves
    assert.equal(dists.length, manifest.files.length + 2);
    assert.ok(manifest.files.some((f) => f.name.endsWith('.warc.gz')));
    for (const f of manifest.files) {
      const dist = dists.find(
        (d) => one(d.value, `${DCAT}downloadURL`) === `${BASE}snapshots/${entry.name}/${f.name}`,
      );
      assert.ok(dist, `${entry.name}/${f.name}`);
      assert.equal(Number(one(dist.value, `${DCAT}byteSize`)), f.bytes);
      assert.equal(one(store.getObjects(dist, `${SPDX}checksum`, null)[0], `${SPDX}checksumValue`), f.sha256);
      assert.equal(store.getObjects(dist, `${DCAT}mediaType`, null)[0]?.termType, 'NamedNode', f.name);
      assert.ok(one(dist.value, `${DCAT}mediaType`).startsWith(IANA));
    }
  }
}

test("the portal's DCAT description lists each expansion crawl as a dataset with its files as distributions", async () => {
  const portalRoot = join(work, 'portal', 'snapshots');
  await cp(root, portalRoot, { recursive: true });
  // the portal describes the kernel's observations: one weekly snapshot beside the expansions
  await publishWeek(portalRoot, WEEK1, source(week1()));
  const dataDir = join(work, 'portal', 'data');
  await computePortalData(statsOptions({ root: portalRoot, dataDir, baseUrl: BASE }));
  const turtle = join(dataDir, 'dataset.ttl');
  const parsed = new Parser({ format: 'text/turtle' }).parse(await readFile(turtle, 'utf8'));
  await assertDescribesExpansions(portalRoot, parsed);
  const rapper = spawnSync('rapper', ['-i', 'turtle', '-o', 'ntriples', turtle, BASE], { encoding: 'utf8' });
  assert.equal(rapper.status, 0, rapper.stderr);
  assert.doesNotMatch(rapper.stderr, /error|warning/i);
  assert.equal(rapper.stdout.trim().split('\n').length, parsed.length);
  const doc = JSON.parse(await readFile(join(dataDir, 'dataset.jsonld'), 'utf8'));
  const nquads = (await jsonld.toRDF(doc, { format: 'application/n-quads' })) as unknown as string;
  await assertDescribesExpansions(portalRoot, new Parser({ format: 'N-Quads' }).parse(nquads));
});
