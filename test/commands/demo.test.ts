import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  crawlConfig,
  type Progress,
  type ProgressState,
  readUriList,
  silentLogger,
} from '../../pipeline/core/index.ts';
import { DEMO_MARKER, runDemo } from '../../pipeline/demo/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { listSnapshots, readManifest } from '../../pipeline/snapshot/index.ts';
import { EXPANSION_ROUND } from '../../pipeline/stats/portal-data.ts';
import { CLI, runCli } from './cli-process.ts';

test('observatory demo runs the whole observatory and ends with a built portal', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-'));
  const { status, stdout, stderr } = await runCli([
    ...[
      'demo',
      '--docs',
      '600',
      '--plds',
      '40',
      '--weeks',
      '1',
      '--no-serve',
      '--portal-port',
      '0',
      '--out',
      dir,
    ],
  ]);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /600 documents, 40 PLDs/);
  assert.match(stdout, /kernel: \d+ URIs on \d+ PLDs/);
  // every count printed says what it counts, and agrees with the files: the seed list's lines, the
  // seeds the expansion started from (distinct documents), the catalogue's snapshots by kind
  const coreFile = join(dir, 'seeds', 'core.txt');
  const lines = readFileSync(coreFile, 'utf8').trim().split('\n').length;
  const seeds = (await readUriList(coreFile)).length;
  assert.ok(seeds < lines, `the simulated Web's list names vocabulary terms beside their documents`);
  assert.ok(
    stdout.includes(
      `core seed list: ${coreFile} (${lines} URIs, ${seeds} without #fragments and duplicates: the core seeds)`,
    ),
    stdout,
  );
  assert.ok(stdout.includes(`expand: 2-hop crawl from the ${seeds} core seeds\n`), stdout);
  const catalogue = await listSnapshots(join(dir, 'snapshots'));
  const expansion = catalogue.find((e) => e.kind === 'expand');
  assert.ok(expansion, 'the expansion crawl is catalogued');
  assert.equal((await readManifest(join(dir, 'snapshots', expansion.name))).expansion?.seeds, seeds);
  const count = (kind: string) => catalogue.filter((e) => e.kind === kind).length;
  assert.ok(
    stdout.includes(
      `${catalogue.length} snapshots in ${join(dir, 'snapshots')} (${count('weekly')} weekly, ${count('interval')} interval, ${count('expand')} expand;`,
    ),
    stdout,
  );
  assert.match(stdout, /week 1: weekly snapshot 2026-01-05/);
  assert.match(stdout, /week 2: weekly snapshot 2026-01-12/);
  // a week's ticks in words: how many documents were re-visited, in how many of its ticks
  assert.match(
    stdout,
    /\n {2}re-visits \(cho-irregular\): (none were due yet \(every kernel document starts at once a week\)|\d+ documents? in \d+ of the week's 15 ticks \(documents per tick, by tick: \d+: \d+(, \d+: \d+)*\))\n/,
  );
  assert.doesNotMatch(stdout, /slot:documents/);
  assert.match(stdout, /\| weekly only \| \d+ \| \d+ \| \d+ \| [\d.]+% \| [\d.]+% \|/);
  // the default strategy's re-visits and DyLDO's, crawled on the same virtual clock
  assert.match(
    stdout,
    /\| weekly \+ ticks, cho-irregular \(default\) \| \d+ \| \d+ \| \d+ \| [\d.]+% \| [\d.]+% \|/,
  );
  assert.match(stdout, /\| weekly \+ ticks, dyldo \| \d+ \| \d+ \| \d+ \| [\d.]+% \| [\d.]+% \|/);
  assert.ok(
    existsSync(join(dir, 'compare', 'dyldo', 'snapshots', '2026-01-12')),
    "dyldo's series has its own folder",
  );
  assert.ok(existsSync(join(dir, 'portal', 'index.html')), 'the portal is built');
  const verify = spawnSync(process.execPath, [CLI, 'verify', '--root', join(dir, 'snapshots')], {
    encoding: 'utf8',
  });
  assert.equal(verify.status, 0, verify.stderr);
  assert.match(verify.stdout, /ok 2026-01-05/);
  assert.match(verify.stdout, /ok 2026-01-12/);
  // the expansion's crawl is published too, offered for download and drawn per round
  assert.match(verify.stdout, /^ok 2026-01-0\dT\d{4}Z-expand-1:/m);
  const downloads = readFileSync(join(dir, 'portal', 'downloads', 'index.html'), 'utf8');
  assert.match(downloads, /id="expansion"/);
  // the DCAT description's IRI of the crawl (downloads/#<name>) is its row there
  assert.match(downloads, /<tr id="2026-01-0\dT\d{4}Z-expand-1"/);
  // the round column of an expansion crawl, as the data dictionary says it (test/stats/data-dictionary.test.ts)
  assert.ok(downloads.includes(EXPANSION_ROUND), 'the Downloads page says what round is');
  // the Snapshots page lists every published crawl, the expansion's too (linked to its Downloads row)
  const snapshotsPage = readFileSync(join(dir, 'portal', 'snapshots', 'index.html'), 'utf8');
  for (const e of catalogue)
    assert.ok(snapshotsPage.includes(`>${e.name}</a>`), `${e.name} on the Snapshots page`);
  assert.match(snapshotsPage, new RegExp(`href="[^"]*downloads/#${expansion.name}">${expansion.name}</a>`));
  assert.match(
    readFileSync(join(dir, 'portal', 'reproductions', 'index.html'), 'utf8'),
    /the one crawl of expansion run \d{4}-\d\d-\d\dT\d{4}Z/,
  );
  // the structured log was opened after the folder was emptied, so it is still there, full
  const log = readFileSync(join(dir, 'demo.log'), 'utf8').trim().split('\n');
  assert.ok(log.length > 10, `${log.length} log lines`);
  for (const line of log) assert.equal(typeof JSON.parse(line).level, 'number', line);
  assert.ok(existsSync(join(dir, DEMO_MARKER)), "the folder is marked as the demo's own");
});

test('every phase of the demo reports its progress, done/total, and finishes it', async () => {
  const sim = await startSimWeb({ seed: 3, docs: 200, plds: 20, latencyScale: 0, faults: 0.5 });
  const phases = new Map<string, { updates: number; finished: ProgressState | null }>();
  const progress = (label: string): Progress => {
    const phase = { updates: 0, finished: null as ProgressState | null };
    assert.ok(!phases.has(label), `one progress per phase: ${label}`);
    phases.set(label, phase);
    return {
      update: (state) => {
        assert.ok(state.done <= state.total, `${label}: ${state.done}/${state.total}`);
        phase.updates++;
      },
      finish: (state) => {
        phase.finished = state;
      },
    };
  };
  try {
    await runDemo({
      out: await mkdtemp(join(tmpdir(), 'demo-progress-')),
      sim,
      weeks: 1,
      start: sim.clock.now(),
      config: crawlConfig({ delayMs: 2, timeoutMs: 2000, maxAttempts: 1 }),
      logger: silentLogger,
      say: () => {},
      progress,
    });
  } finally {
    await sim.close();
  }
  const labels = [...phases.keys()];
  for (const expected of [
    'expand: crawl 1: documents crawled',
    'week 1: weekly snapshot: documents crawled',
    'week 1: weekly snapshot: publish %',
    'week 1: weekly snapshot, dyldo series: documents crawled',
    'week 1: ticks of both series',
    'week 2: weekly snapshot: documents crawled',
  ])
    assert.ok(labels.includes(expected), `${expected} in ${labels.join('; ')}`);
  for (const [label, phase] of phases) {
    assert.ok(phase.finished, `${label} finished`);
    assert.equal(phase.finished.done, phase.finished.total, label);
  }
  assert.equal(phases.get('week 1: ticks of both series')?.finished?.total, 30, '15 ticks of each series');
});

test('demo --out refuses a folder holding files it did not write, and they survive', async () => {
  const home = await mkdtemp(join(tmpdir(), 'demo-home-'));
  await mkdir(join(home, 'notes'));
  await writeFile(join(home, 'notes', 'thesis.txt'), 'years of work\n');
  await writeFile(join(home, '.profile'), 'export A=1\n');
  const { status, stdout, stderr } = await runCli(['demo', '--no-serve', '--out', home]);
  assert.equal(status, 2, stderr);
  assert.equal(stdout, '', 'nothing started');
  assert.match(
    stderr,
    /^observatory: --out .*demo-home-\S+ holds files it did not write \(no \.observatory-demo in it\); .* \[invalid_input\]\n$/,
  );
  assert.deepEqual((await readdir(home)).sort(), ['.profile', 'notes']);
  assert.equal(readFileSync(join(home, 'notes', 'thesis.txt'), 'utf8'), 'years of work\n');

  const file = join(home, '.profile');
  const notAFolder = await runCli(['demo', '--no-serve', '--out', file]);
  assert.equal(notAFolder.status, 2);
  assert.match(notAFolder.stderr, /^observatory: --out .*\.profile is not a folder; .*\[invalid_input\]\n$/);
  assert.equal(readFileSync(file, 'utf8'), 'export A=1\n');
});
