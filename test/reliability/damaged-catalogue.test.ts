import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { manualClock, ObservatoryError } from '../../pipeline/core/index.ts';
import { CATALOGUE_FILE, publishSnapshot, snapshotName } from '../../pipeline/snapshot/index.ts';
import { computePortalData, statsOptions } from '../../pipeline/stats/index.ts';
import { publishSampleWeeks, source, WEEK2, week2 } from '../snapshot/sample-crawl.ts';

/**
 * A hand-edited or damaged snapshots folder must be refused, in the project's error vocabulary,
 * both by a publish (which would otherwise write on top of it) and by the portal (which would
 * otherwise die in DuckDB or follow a manifest's file name out of the snapshot's folder).
 */
const CLI = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
const WEEK3 = WEEK2 + 7 * 86_400_000;
let work: string;
let pristine: string;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'damaged-catalogue-'));
  pristine = join(work, 'pristine');
  await publishSampleWeeks(pristine);
});
after(() => rm(work, { recursive: true, force: true }));

type Catalogue = { snapshots: Array<Record<string, unknown>> };

/** A copy of the two published weeks with one damage applied. */
async function damaged(label: string, damage: (root: string, catalogue: Catalogue) => Promise<void>) {
  const root = join(work, label);
  await cp(pristine, root, { recursive: true });
  const path = join(root, CATALOGUE_FILE);
  const catalogue = JSON.parse(await readFile(path, 'utf8')) as Catalogue;
  await damage(root, catalogue);
  await writeFile(path, JSON.stringify(catalogue));
  return root;
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

const CASES: ReadonlyArray<{
  label: string;
  damage: (root: string, catalogue: Catalogue) => Promise<void>;
  message: RegExp;
  /** Whether a publish reads the damage too (a manifest is the portal's to check). */
  publish: boolean;
}> = [
  {
    label: 'table-changed',
    // a table edited in place after publishing: the portal and a publish read it only checked
    damage: async (root, c) => {
      await appendFile(join(root, String(c.snapshots.at(-1)!.name), 'documents.parquet'), 'x');
    },
    message: /documents\.parquet has \d+ bytes, the manifest says \d+/,
    publish: true,
  },
  {
    label: 'duplicate-entry',
    damage: async (_, c) => {
      c.snapshots.push({ ...c.snapshots[0] });
    },
    message: /index\.json is damaged: it lists snapshot 2026-11-16 twice/,
    publish: true,
  },
  {
    label: 'missing-folder',
    damage: async (root, c) => {
      await rm(join(root, String(c.snapshots[0].name)), { recursive: true });
    },
    message: /index\.json is damaged: it lists snapshot 2026-11-16, whose folder is missing/,
    publish: true,
  },
  {
    label: 'name-out-of-root',
    damage: async (_, c) => {
      c.snapshots[0].name = '../pristine/2026-11-16';
    },
    message:
      /index\.json is damaged: an entry's name "\.\.\/pristine\/2026-11-16" is not a snapshot folder name/,
    publish: true,
  },
  {
    label: 'manifest-file-out-of-folder',
    // a careful forger: the manifest lists a file outside the folder and index.json pins the forged manifest
    damage: async (root, c) => {
      const manifestPath = join(root, String(c.snapshots[0].name), 'manifest.json');
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
      manifest.files.push({ name: '../../../etc/hostname', bytes: 1, sha256: 'a'.repeat(64) });
      await writeFile(manifestPath, JSON.stringify(manifest));
      c.snapshots[0].manifestSha256 = await sha256(manifestPath);
    },
    message: /names "\.\.\/\.\.\/\.\.\/etc\/hostname": not a plain file name/,
    publish: false,
  },
  {
    label: 'manifest-not-pinned',
    damage: async (root, c) => {
      await writeFile(
        join(root, String(c.snapshots[1].name), 'manifest.json'),
        '{"name":"x","files":[],"counts":{}}',
      );
    },
    message: /manifest\.json: its SHA-256 is not the one index\.json lists/,
    publish: false,
  },
];

for (const { label, damage, message, publish } of CASES) {
  test(`the portal refuses a snapshots folder with ${label}, with a corrupt error`, async () => {
    const root = await damaged(label, damage);
    await assert.rejects(
      computePortalData(statsOptions({ root, dataDir: join(work, `${label}-data`) })),
      (e: unknown) => e instanceof ObservatoryError && e.code === 'corrupt' && message.test(e.message),
    );
    const out = join(work, `${label}-site`);
    const r = spawnSync(
      process.execPath,
      [CLI, 'portal', '--root', root, '--out', out, '--data', join(work, `${label}-cli-data`)],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 1, r.stderr);
    // the phases reported before it (a line each without a terminal), then one coded failure line
    const failures = r.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('observatory:'));
    assert.equal(failures.length, 1, r.stderr);
    assert.match(failures[0], message);
    assert.match(failures[0], /\[corrupt\]$/);
    assert.ok(r.stderr.trim().endsWith(failures[0]), r.stderr);
    // nothing was built, so nothing was linked (least of all /etc/hostname)
    await assert.rejects(readdir(out), { code: 'ENOENT' });
  });

  if (publish)
    test(`a publish refuses to write on top of a snapshots folder with ${label}`, async () => {
      const root = await damaged(`${label}-publish`, damage);
      const before = await readFile(join(root, CATALOGUE_FILE), 'utf8');
      const name = snapshotName('weekly', WEEK3);
      await assert.rejects(
        publishSnapshot({
          root,
          name,
          kind: 'weekly',
          startedAt: WEEK3,
          endedAt: WEEK3 + 3_600_000,
          config: {},
          documents: source(week2()),
          clock: manualClock(WEEK3 + 2 * 3_600_000),
        }),
        (e: unknown) => e instanceof ObservatoryError && e.code === 'corrupt' && message.test(e.message),
      );
      assert.ok(!(await readdir(root)).includes(name), 'no folder was published');
      assert.equal(await readFile(join(root, CATALOGUE_FILE), 'utf8'), before, 'index.json untouched');
    });
}
