import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { readUriList } from '../../pipeline/core/index.ts';
import { latestSchedule } from '../../pipeline/observe/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { listSnapshots, readManifest, readSchedule } from '../../pipeline/snapshot/index.ts';
import { computePortalData, statsOptions } from '../../pipeline/stats/index.ts';
import { CLI, runCli, snapshotCliArgs } from './cli-process.ts';

/**
 * `observatory expand` publishes each of its crawls as a snapshot of kind `expand` beside the
 * weekly ones, and nothing that reads the kernel's observations (change detection, the schedule,
 * the portal) takes them for observations.
 */
const EXPANDED = '2026-01-04T08:00:00Z';
const WEEK = '2026-01-05T00:00:00Z';
const LATER = '2026-01-06T12:00:00Z';
let sim: SimWeb;
let seedsFile: string;
let work: string;

before(async () => {
  sim = await startSimWeb({
    seed: 8,
    docs: 300,
    plds: 25,
    latencyScale: 0,
    faults: 0,
    now: Date.parse(WEEK),
  });
  work = mkdtempSync(join(tmpdir(), 'expand-cmd-'));
  seedsFile = join(work, 'core.txt');
  writeFileSync(seedsFile, `${sim.coreSeeds.join('\n')}\n`);
});

after(() => sim.close());

const pacing = ['--delay', '0.005', '--timeout', '5s', '--log-level', 'silent'];

function expandArgs(dir: string, root: string, now: string, repeat: number, ...extra: string[]): string[] {
  return [
    'expand',
    ...['--seeds', seedsFile, '--kernel', join(dir, 'kernel.txt'), '--work', join(dir, 'work')],
    ...['--out', root, '--repeat', String(repeat), '--hops', '2', '--now', now],
    ...['--resolve', sim.resolveRule, '--allow-private', ...pacing, ...extra],
  ];
}

async function query(sql: string): Promise<unknown[][]> {
  const db = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    return (await db.runAndReadAll(sql)).getRows();
  } finally {
    db.closeSync();
  }
}

interface ReportRound {
  round: number;
  documents: number;
  rdfDocuments: number;
}

test('expand publishes its crawls as expand snapshots, once, and the weekly series ignores them', async () => {
  const dir = join(work, 'first');
  const root = join(work, 'snapshots');
  const first = await runCli(expandArgs(dir, root, EXPANDED, 2, '--keep-work'));
  assert.equal(first.status, 0, first.stderr);
  const catalogue = await listSnapshots(root);
  assert.equal(catalogue.length, 2);
  const report = JSON.parse(readFileSync(join(dir, 'kernel-report.json'), 'utf8')) as {
    crawls: Array<{ rounds: ReportRound[] }>;
  };
  for (const [index, entry] of catalogue.entries()) {
    const crawl = index + 1;
    assert.match(entry.name, new RegExp(`^2026-01-04T08\\d\\dZ-expand-${crawl}$`));
    assert.equal(entry.kind, 'expand');
    const folder = join(root, entry.name);
    const manifest = await readManifest(folder);
    assert.equal(manifest.kind, 'expand');
    assert.deepEqual(manifest.expansion, {
      run: '2026-01-04T0800Z',
      crawl,
      of: 2,
      hops: 2,
      seeds: (await readUriList(seedsFile)).length,
    });
    assert.deepEqual(manifest.previousSnapshots, []);
    assert.equal(manifest.counts.changes, 0, 'an expansion crawl is compared with nothing');
    assert.equal(manifest.counts.schedule, 0);
    const rounds = await query(
      `SELECT round, count(*), count(*) FILTER (WHERE kind = 'expand' AND segment = 'expand')
        FROM read_parquet('${folder}/documents.parquet') GROUP BY round ORDER BY round`,
    );
    assert.deepEqual(
      rounds.map(([round, documents, tagged]) => [Number(round), Number(documents), Number(tagged)]),
      report.crawls[index].rounds.map((r) => [r.round, r.documents, r.documents]),
      `crawl ${crawl}: documents per round as the expansion report counts them`,
    );
    assert.ok(
      manifest.files.some((f) => f.name.endsWith('.warc.gz')),
      'the crawl is archived',
    );
    const view = join(root, 'tables', 'documents', 'kind=expand', `date=${entry.name.slice(0, 10)}`);
    assert.ok(existsSync(join(view, `${entry.name}.parquet`)), 'linked into the tables/ view');
  }

  const index = readFileSync(join(root, 'index.json'), 'utf8');
  const rerun = await runCli(expandArgs(dir, root, EXPANDED, 2, '--keep-work'));
  assert.equal(rerun.status, 0, rerun.stderr);
  assert.doesNotMatch(rerun.stdout, /published/, 'a rerun publishes nothing again');
  assert.equal(readFileSync(join(root, 'index.json'), 'utf8'), index);

  // killed after the folder was renamed into place but before index.json listed it, then rerun
  // with other options: the folder is completed with the config it was published with
  const listed = JSON.parse(index) as { snapshots: Array<{ name: string }> };
  const last = listed.snapshots.at(-1)!.name;
  const manifestBefore = readFileSync(join(root, last, 'manifest.json'), 'utf8');
  writeFileSync(
    join(root, 'index.json'),
    JSON.stringify({ ...listed, snapshots: listed.snapshots.slice(0, -1) }, null, 2),
  );
  const otherOptions = await runCli(
    expandArgs(dir, root, EXPANDED, 2, '--keep-work', '--max-redirects', '4'),
  );
  assert.equal(otherOptions.status, 0, otherOptions.stderr);
  const entries = (await listSnapshots(root)).map((e) => [e.name, e.manifestSha256]);
  const before = (JSON.parse(index) as { snapshots: Array<{ name: string; manifestSha256: string }> })
    .snapshots;
  assert.deepEqual(
    entries,
    before.map((e) => [e.name, e.manifestSha256]),
    'listed again, the same folder',
  );
  assert.equal(readFileSync(join(root, last, 'manifest.json'), 'utf8'), manifestBefore);

  // the kernel's first weekly snapshot has the expansion crawls' URLs, and nothing to compare them with
  const weekly = await runCli([
    ...snapshotCliArgs({ kernel: join(dir, 'kernel.txt'), out: root, now: WEEK, resolve: sim.resolveRule }),
    ...pacing,
    '--adaptive-rounds',
    '1',
  ]);
  assert.equal(weekly.status, 0, weekly.stderr);
  const weeklyManifest = await readManifest(join(root, '2026-01-05'));
  assert.deepEqual(weeklyManifest.previousSnapshots, []);
  const [[compared]] = await query(
    `SELECT count(*) FILTER (WHERE previous_snapshot IS NOT NULL) FROM read_parquet('${root}/2026-01-05/changes.parquet')`,
  );
  assert.equal(Number(compared), 0, 'no kernel document is compared with an expansion crawl');
  const schedule = await readSchedule(join(root, '2026-01-05'));
  assert.ok(schedule.length > 0);

  // an expansion published after the weekly is not the schedule's newest state
  const again = await runCli(expandArgs(join(work, 'second'), root, LATER, 1));
  assert.equal(again.status, 0, again.stderr);
  assert.equal((await listSnapshots(root)).at(-1)?.kind, 'expand');
  assert.deepEqual(await latestSchedule(root), schedule);

  const verify = spawnSync(process.execPath, [CLI, 'verify', '--root', root], { encoding: 'utf8' });
  assert.equal(verify.status, 0, verify.stderr);
  for (const entry of await listSnapshots(root))
    assert.match(verify.stdout, new RegExp(`^ok ${entry.name}:`, 'm'));

  const data = await computePortalData(statsOptions({ root, dataDir: join(work, 'portal-data') }));
  assert.deepEqual(
    data.snapshots.map((s) => [s.name, s.kind, s.previous]),
    [['2026-01-05', 'weekly', null]],
  );
  assert.equal(data.latestWeekly, '2026-01-05');

  // the expansion crawls are downloads (listed, in urls.txt and the republished catalogue), and
  // the Reproductions page's per-round figures are theirs
  const expansions = (await listSnapshots(root)).filter((e) => e.kind === 'expand');
  assert.deepEqual(
    data.expansions.map((x) => [x.name, x.crawl, x.of]),
    expansions.map((e, i) => [e.name, i < 2 ? i + 1 : 1, i < 2 ? 2 : 1]),
  );
  const urls = readFileSync(join(work, 'portal-data', 'urls.txt'), 'utf8');
  for (const x of data.expansions) {
    assert.ok(x.files.some((f) => f.name === 'documents.parquet'));
    for (const f of x.files) assert.ok(urls.includes(`${f.url}\n`), `${f.url} in urls.txt`);
  }
  const republished = JSON.parse(readFileSync(join(work, 'portal-data', 'index.json'), 'utf8')) as {
    snapshots: Array<{ name: string }>;
  };
  assert.deepEqual(
    republished.snapshots.map((e) => e.name),
    (await listSnapshots(root)).map((e) => e.name),
  );
  // the Reproductions page's per-round figures are the newest expansion run's: the later one, of one crawl
  const figure2 = data.reproductions.find((r) => r.id === 'dyldo-figure-2');
  const later = JSON.parse(readFileSync(join(work, 'second', 'kernel-report.json'), 'utf8')) as {
    crawls: Array<{ rounds: ReportRound[] }>;
  };
  assert.deepEqual(
    figure2?.table.rows.map((row) => row.slice(0, 4)),
    later.crawls[0].rounds.map((r) => [expansions[2].name, r.round, r.documents, r.rdfDocuments]),
    "Figure 2's documents and RDF documents per round are the later expansion report's",
  );
});

test('--no-publish keeps only the kernel and its report', async () => {
  const dir = join(work, 'unpublished');
  const root = join(work, 'unpublished-snapshots');
  const run = await runCli(expandArgs(dir, root, EXPANDED, 1, '--no-publish'));
  assert.equal(run.status, 0, run.stderr);
  assert.ok(readFileSync(join(dir, 'kernel.txt'), 'utf8').split('\n').length > sim.coreSeeds.length);
  assert.deepEqual(await listSnapshots(root), []);
});

test("a careless --work destroys nothing: a folder of other files, the snapshots root or one holding the kernel is refused; an earlier expansion's is taken and removed when done", async () => {
  const dir = join(work, 'careless');
  const root = join(work, 'careless-snapshots');
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'thesis.tex'), 'precious\n');
  const args = (workDir: string, kernel = join(dir, 'kernel.txt')) => [
    'expand',
    ...['--seeds', seedsFile, '--kernel', kernel, '--work', workDir, '--out', root, '--no-publish'],
    ...[
      '--repeat',
      '1',
      '--hops',
      '1',
      '--now',
      EXPANDED,
      '--resolve',
      sim.resolveRule,
      '--allow-private',
      ...pacing,
    ],
  ];
  const refused = [
    { given: args(home), why: /holds files it did not write/ },
    { given: args(root), why: /holds .*careless-snapshots, which expand reads/ },
    { given: args(join(dir, 'own'), join(dir, 'own', 'kernel.txt')), why: /holds .*kernel\.txt/ },
  ];
  for (const { given, why } of refused) {
    const run = await runCli(given);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, why);
    assert.match(run.stderr, /invalid_input/);
  }
  assert.equal(readFileSync(join(home, 'thesis.tex'), 'utf8'), 'precious\n');
  assert.ok(!existsSync(join(dir, 'kernel.txt')), 'nothing ran');
  // a work folder of a version before the mark holds crawl folders only
  const earlier = join(dir, 'earlier');
  mkdirSync(join(earlier, 'crawl-1'), { recursive: true });
  const run = await runCli(args(earlier));
  assert.equal(run.status, 0, run.stderr);
  assert.ok(existsSync(join(dir, 'kernel.txt')));
  assert.ok(!existsSync(earlier), 'removed once the kernel is written');
});

test('--profile ldspider sets its bundle, recorded in the manifest, and an explicit option wins', async () => {
  const root = join(work, 'profile-snapshots');
  const profiled = await runCli(
    expandArgs(join(work, 'profile'), root, EXPANDED, 1, '--profile', 'ldspider', '--concurrency', '8'),
  );
  assert.equal(profiled.status, 0, profiled.stderr);
  const [entry] = await listSnapshots(root);
  const folder = join(root, entry.name);
  const config = (await readManifest(folder)).config as Record<string, unknown>;
  assert.equal(config.profile, 'ldspider');
  assert.equal(config.policy, 'round-robin');
  assert.equal(config.roundEnd, 'ldspider');
  assert.equal(config.conditional, false);
  assert.deepEqual(config.plan, { maxDepth: 2, maxDocuments: null, maxRounds: 3 });
  assert.equal(config.concurrency, 8, 'an explicit --concurrency wins over the profile');
  assert.equal(config.delayMs, 5, 'an explicit --delay wins over the profile');
  const [[lastRound]] = await query(`SELECT max(round) FROM read_parquet('${folder}/documents.parquet')`);
  assert.ok(Number(lastRound) <= 2, `rounds are hops: last round ${lastRound}`);

  const explicit = await runCli(
    expandArgs(
      join(work, 'explicit'),
      join(work, 'explicit-snapshots'),
      EXPANDED,
      1,
      '--profile',
      'ldspider',
      '--policy',
      'longest-first',
      '--rounds',
      'unbounded',
    ),
  );
  assert.equal(explicit.status, 0, explicit.stderr);
  const [other] = await listSnapshots(join(work, 'explicit-snapshots'));
  const otherConfig = (await readManifest(join(work, 'explicit-snapshots', other.name))).config as Record<
    string,
    unknown
  >;
  assert.equal(otherConfig.policy, 'longest-first');
  assert.deepEqual(otherConfig.plan, { maxDepth: 2, maxDocuments: null, maxRounds: null });
  assert.equal(otherConfig.concurrency, 64, 'the profile pins the paper concurrency');
});

test('snapshot --profile ldspider: round-robin, every document in full; --conditional takes that back', async () => {
  const kernel = join(work, 'kernel-for-profile.txt');
  writeFileSync(kernel, `${sim.coreSeeds.join('\n')}\n`);
  for (const [name, extra, conditional] of [
    ['plain', [], false],
    ['conditional', ['--conditional'], true],
  ] as const) {
    const root = join(work, `weekly-profile-${name}`);
    const run = await runCli([
      ...snapshotCliArgs({ kernel, out: root, now: WEEK, resolve: sim.resolveRule }),
      ...pacing,
      '--adaptive-rounds',
      '1',
      '--profile',
      'ldspider',
      ...extra,
    ]);
    assert.equal(run.status, 0, run.stderr);
    const config = (await readManifest(join(root, '2026-01-05'))).config as Record<string, unknown>;
    assert.equal(config.profile, 'ldspider');
    assert.equal(config.policy, 'round-robin');
    assert.equal(config.conditional, conditional);
  }
});
