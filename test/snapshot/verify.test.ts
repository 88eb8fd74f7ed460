import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { manualClock } from '../../pipeline/core/index.ts';
import {
  computeDigest,
  DIGEST_VERSION,
  openDuckDb,
  publishSnapshot,
  readManifest,
  verifySnapshot,
} from '../../pipeline/snapshot/index.ts';
import { source, WEEK1, week1 } from './sample-crawl.ts';

const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
let root: string;
let good: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'snapshot-verify-'));
  good = (
    await publishSnapshot({
      root,
      name: '2026-11-16',
      kind: 'weekly',
      startedAt: WEEK1,
      endedAt: WEEK1 + 1000,
      config: {},
      documents: source(week1()),
      clock: manualClock(WEEK1),
    })
  ).folder;
});
after(() => rm(root, { recursive: true, force: true }));

/** A damaged copy of the good folder, named like it (verify checks the name). */
async function damaged(label: string, damage: (folder: string) => Promise<void>): Promise<string> {
  const folder = join(root, label, '2026-11-16');
  await cp(good, folder, { recursive: true });
  await damage(folder);
  return folder;
}

/**
 * Replaces a listed file of a folder and keeps its size and checksum consistent in the manifest and
 * SHA256SUMS, so that what a test damages inside the file is the first problem verify finds.
 */
async function relist(folder: string, name: string, bytes: Buffer | string): Promise<void> {
  await writeFile(join(folder, name), bytes);
  const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
  const entry = manifest.files.find((x: { name: string }) => x.name === name);
  entry.bytes = Buffer.byteLength(bytes);
  entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await writeFile(join(folder, 'manifest.json'), text);
  const line = (file: string) => new RegExp(`^[0-9a-f]{64}(?= {2}${file.replace('.', '\\.')}$)`, 'm');
  const sums = (await readFile(join(folder, 'SHA256SUMS'), 'utf8'))
    .replace(line(name), entry.sha256)
    .replace(line('manifest.json'), createHash('sha256').update(text).digest('hex'));
  await writeFile(join(folder, 'SHA256SUMS'), sums);
}

test('a published folder verifies', async () => {
  const report = await verifySnapshot(good);
  assert.deepEqual(report, { name: '2026-11-16', files: 10, bytes: report.bytes, quads: 15 });
});

test('verify catches a flipped byte', async () => {
  const folder = await damaged('flipped', async (f) => {
    const path = join(f, 'quads.parquet');
    const bytes = await readFile(path);
    bytes[Math.floor(bytes.length / 2)] ^= 0x01;
    await writeFile(path, bytes);
  });
  await assert.rejects(verifySnapshot(folder), {
    code: 'corrupt',
    message: /quads\.parquet does not match its SHA-256/,
  });
});

test('verify catches a missing file', async () => {
  const folder = await damaged('missing', (f) => rm(join(f, 'redirects.parquet')));
  await assert.rejects(verifySnapshot(folder), { code: 'corrupt', message: /redirects\.parquet is missing/ });
});

test('verify catches a manifest row count that disagrees with the Parquet file', async () => {
  const folder = await damaged('rows', async (f) => {
    const manifest = JSON.parse(await readFile(join(f, 'manifest.json'), 'utf8'));
    manifest.files.find((x: { name: string }) => x.name === 'documents.parquet').rows = 8;
    const text = `${JSON.stringify(manifest, null, 2)}\n`;
    await writeFile(join(f, 'manifest.json'), text);
    // keep the checksums consistent so that the row count is the first problem
    const sums = await readFile(join(f, 'SHA256SUMS'), 'utf8');
    const hash = createHash('sha256').update(text).digest('hex');
    await writeFile(join(f, 'SHA256SUMS'), sums.replace(/^[0-9a-f]{64}(?= {2}manifest\.json)/m, hash));
  });
  await assert.rejects(verifySnapshot(folder), {
    code: 'corrupt',
    message: /documents\.parquet has 7 rows, the manifest says 8/,
  });
});

test('verify catches statements that do not reconcile with quads.parquet', async () => {
  const folder = await damaged('statements', async (f) => {
    const path = join(f, 'documents.parquet');
    const session = await openDuckDb();
    try {
      // the same file with one more statement claimed for example.org/a, metadata kept
      await session.connection.run(`COPY (SELECT * REPLACE (CASE WHEN url = 'http://example.org/a'
          THEN statements + 1 ELSE statements END AS statements) FROM read_parquet('${path}'))
        TO '${path}.new' (FORMAT parquet, COMPRESSION zstd, KV_METADATA {observatory_schema_version: '2'})`);
    } finally {
      session.close();
    }
    await relist(f, 'documents.parquet', await readFile(`${path}.new`));
    await rm(`${path}.new`);
  });
  await assert.rejects(verifySnapshot(folder), {
    code: 'corrupt',
    message: /graph http:\/\/example\.org\/a has 5 rows in quads\.parquet, its downloading row says 6/,
  });
});

test('the published digest is the one queried from the tables, and verify catches one that is not', async () => {
  const text = await readFile(join(good, 'digest.json'), 'utf8');
  const digest = JSON.parse(text);
  assert.equal(digest.digestVersion, DIGEST_VERSION);
  const session = await openDuckDb();
  try {
    const { digestVersion, ...published } = digest;
    assert.deepEqual(published, await computeDigest(session.connection, good, await readManifest(good)));
  } finally {
    session.close();
  }
  assert.ok(digest.plds.length > 0 && digest.available > 0, text);
  const folder = await damaged('digest', (f) =>
    relist(
      f,
      'digest.json',
      text.replace(`"available":${digest.available}`, `"available":${digest.available + 1}`),
    ),
  );
  await assert.rejects(verifySnapshot(folder), {
    code: 'corrupt',
    message: /digest\.json is not the digest of the folder's tables/,
  });
});

test('observatory verify: exit 0 on the catalogue, exit 1 with one line on a damaged folder', async () => {
  const ok = spawnSync(process.execPath, [cli, 'verify', '--root', root], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^ok 2026-11-16: 10 files, \d+ bytes, 15 quads$/m);
  const folder = await damaged('cli', (f) => rm(join(f, 'data.nq.gz')));
  const bad = spawnSync(process.execPath, [cli, 'verify', folder], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  const lines = bad.stderr.trim().split('\n');
  assert.equal(lines.length, 1);
  assert.match(lines[0], /data\.nq\.gz is missing \[corrupt\]$/);
});

test('observatory verify FOLDER: no such folder, or a file, is invalid input (exit 2), not a damaged snapshot', async () => {
  const file = join(root, 'a-file');
  await writeFile(file, '');
  for (const [folder, found] of [
    [join(root, 'no', 'such', 'folder'), 'no such folder'],
    [file, 'not a folder'],
  ]) {
    const r = spawnSync(process.execPath, [cli, 'verify', folder], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `observatory: ${folder}: ${found}, nothing to verify [invalid_input]\n`);
  }
});

test('an unwritable root is one clear io error', async () => {
  const file = join(root, 'not-a-directory');
  await writeFile(file, '');
  await assert.rejects(
    publishSnapshot({
      root: join(file, 'snapshots'),
      name: '2026-11-16',
      kind: 'weekly',
      startedAt: WEEK1,
      endedAt: WEEK1,
      config: {},
      documents: source([]),
      clock: manualClock(0),
    }),
    { code: 'io', message: /^cannot create the publish folder .*not-a-directory\/snapshots\/.*ENOTDIR/ },
  );
});
