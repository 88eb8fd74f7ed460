/**
 * The correctness check of the portal's caches (history totals, snapshot pages, digests): a
 * rebuild after snapshots were added, republished or withdrawn writes exactly the site a build
 * from nothing writes for the same snapshots, file for file and byte for byte.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildPortal } from '../../pipeline/portal/index.ts';
import type { CatalogueEntry } from '../../pipeline/snapshot/index.ts';
import { digestCachePath } from '../../pipeline/stats/digest-cache.ts';
import { siteTree } from './site-tree.ts';
import { publishEntries, writeTenYears } from './ten-years.ts';

let work: string;
let root: string;
let entries: CatalogueEntry[];
/** The digests publishing wrote (issue #16): each build's cache starts with them. */
let digests: string;
let builds = 0;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'portal-incremental-'));
  root = join(work, 'snapshots');
  digests = join(work, 'digests');
  entries = await writeTenYears({ root, cacheDir: digests, weeks: 5, intervals: 30 });
});

after(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A data folder whose cache holds only the published digests. */
async function freshData(): Promise<string> {
  const data = join(work, `data-${builds++}`);
  await mkdir(join(data, 'cache'), { recursive: true });
  for (const file of await readdir(digests)) await copyFile(join(digests, file), join(data, 'cache', file));
  return data;
}

/**
 * Builds the published snapshots with the caches of `data` into `out` (a fresh folder unless
 * given: a rebuild reuses its output folder and writes only what changed); returns its files.
 */
async function build(data: string, out = join(work, `out-${builds++}`)): Promise<Map<string, string>> {
  await buildPortal({
    root,
    out,
    dataDir: data,
    baseUrl: 'http://127.0.0.1:8080/',
    downloadsUrl: 'https://downloads.example/snapshots/',
  });
  return siteTree(out);
}

test('a rebuild after a new snapshot, a republished one and a withdrawn one writes the site a cold build writes', async () => {
  const data = await freshData();
  const out = join(work, 'site');
  await publishEntries(root, entries.slice(0, -1));
  const before = await build(data, out);
  const old = join(out, 'snapshots', entries[0].name);
  const inodes = async () => [
    (await stat(join(old, 'index.html'))).ino,
    (await stat(join(old, 'urls.txt'))).ino,
  ];
  const unchanged = await inodes();
  await publishEntries(root, entries);
  const added = await build(data, out);
  // the rebuild left the old snapshot's files alone, and wrote what a cold build writes
  assert.deepEqual(await inodes(), unchanged);
  // only the new snapshot's page was rendered; the others came from the page cache
  assert.deepEqual(JSON.parse(await readFile(join(data, 'snapshot-pages.json'), 'utf8')), [
    entries.at(-1)!.name,
  ]);
  assert.deepEqual(added, await build(await freshData()));
  const last = entries.at(-1)!.name;
  assert.ok(added.has(`snapshots/${last}/index.html`) && !before.has(`snapshots/${last}/index.html`));

  // republished: snapshot 3 gets another manifest (one document more), its digest comes with it
  const folder = join(root, entries[3].name);
  const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
  manifest.stats.documents += 1;
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await writeFile(join(folder, 'manifest.json'), text);
  const sha = createHash('sha256').update(text).digest('hex');
  await copyFile(digestCachePath(digests, entries[3].manifestSha256), digestCachePath(digests, sha));
  await copyFile(
    digestCachePath(digests, entries[3].manifestSha256),
    digestCachePath(join(data, 'cache'), sha),
  );
  const republished = entries.map((e, i) => (i === 3 ? { ...e, manifestSha256: sha } : e));
  await publishEntries(root, republished);
  const rebuilt = await build(data, out);
  assert.deepEqual(rebuilt, await build(await freshData()));
  assert.notEqual(
    rebuilt.get(`snapshots/${entries[3].name}/index.html`),
    added.get(`snapshots/${entries[3].name}/index.html`),
  );

  // withdrawn: the catalogue no longer lists snapshot 10
  await publishEntries(
    root,
    republished.filter((_, i) => i !== 10),
  );
  const withdrawn = await build(data, out);
  assert.deepEqual(withdrawn, await build(await freshData()));
  assert.ok(!withdrawn.has(`snapshots/${entries[10].name}/index.html`));
  assert.ok(!existsSync(join(out, 'snapshots', entries[10].name)), 'its folder is gone too');

  // issue #16: with the caches, old snapshots' Parquet is not read: a new snapshot's folder and the
  // newest weekly one's documents (the PLD pages list them) are all a rebuild needs besides manifests
  const listed = republished.filter((_, i) => i !== 10).slice(0, -1);
  const newestWeekly = listed.filter((e) => e.kind === 'weekly').at(-1)!.name;
  await publishEntries(root, listed);
  const withoutNewest = await build(data, out);
  for (const e of listed)
    for (const table of ['documents', 'changes'])
      if (!(e.name === newestWeekly && table === 'documents'))
        await rm(join(root, e.name, `${table}.parquet`));
  await publishEntries(root, [...listed, entries.at(-1)!]);
  assert.deepEqual(await build(data, out), withdrawn);
  assert.notDeepEqual(withoutNewest, withdrawn);
});
