/**
 * A portal built from a published snapshots folder over HTTP (`--snapshots-url`): it fetches only
 * what the build reads (manifests, SHA256SUMS, the published digests, the small tables the history
 * totals and PLD pages need), never quads.parquet or the dumps, and writes the same site as a build
 * over the full folder on disk; a rebuild after a new snapshot fetches only that snapshot's files.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildPortal, type PortalServer, servePortal } from '../../pipeline/portal/index.ts';
import { publishWeek, source, WEEK1, WEEK2, week1, week2 } from '../snapshot/sample-crawl.ts';
import { siteTree } from './site-tree.ts';

const WEEK3 = WEEK2 + 7 * 86_400_000;
/** The sample crawl's first or second week's documents, as a publish source. */
const sampleWeek = (n: 1 | 2) => source(n === 1 ? week1() : week2());
const BASE_URL = 'http://127.0.0.1:8080/';
let work: string;
let published: string;
let server: PortalServer;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'portal-remote-'));
  published = join(work, 'published');
  await publishWeek(published, WEEK1, source(week1()));
  await publishWeek(published, WEEK2, source(week2()));
  server = await servePortal({ dir: published });
});

after(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

async function folderBytes(dir: string): Promise<number> {
  const files = (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile());
  let bytes = 0;
  for (const f of files) bytes += (await stat(join(f.parentPath, f.name))).size;
  return bytes;
}

/** The files of each snapshot folder under `root`, by snapshot name. */
async function fetchedFiles(root: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const e of await readdir(root, { withFileTypes: true }))
    if (e.isDirectory()) out[e.name] = (await readdir(join(root, e.name))).sort();
  return out;
}

test('built from the published folder over HTTP: the site of a build on disk, from a fraction of the bytes', async () => {
  const local = join(work, 'site-local');
  const buildLocal = () =>
    buildPortal({
      root: published,
      out: local,
      dataDir: join(work, 'data-local'),
      baseUrl: BASE_URL,
      downloadsUrl: server.url,
    });
  const remoteRoot = join(work, 'remote');
  const remote = join(work, 'site-remote');
  const buildRemote = () =>
    buildPortal({
      root: remoteRoot,
      out: remote,
      dataDir: join(work, 'data-remote'),
      baseUrl: BASE_URL,
      snapshotsUrl: server.url,
    });
  await buildLocal();
  const built = await buildRemote();
  assert.deepEqual(await siteTree(remote), await siteTree(local));
  // the history totals are built cold here, so both tables of both weeks; the digests are published
  const cold = ['SHA256SUMS', 'changes.parquet', 'digest.json', 'documents.parquet', 'manifest.json'];
  assert.deepEqual(await fetchedFiles(remoteRoot), { '2026-11-16': cold, '2026-11-23': cold });
  assert.equal(built.fetched?.files, 1 + 2 * cold.length);
  assert.equal(built.fetched?.bytes, await folderBytes(remoteRoot));
  assert.ok(built.fetched.bytes < (await folderBytes(published)) / 2, `${built.fetched.bytes} bytes fetched`);

  // a new week: the rebuild fetches index.json and that week's files, nothing of the older weeks
  await publishWeek(published, WEEK3, source(week1()));
  const warm = await buildRemote();
  assert.equal(warm.fetched?.files, 1 + cold.length);
  assert.deepEqual((await fetchedFiles(remoteRoot))['2026-11-30'], cold);
  await buildLocal();
  assert.deepEqual(await siteTree(remote), await siteTree(local));
});

test('a build without its cache takes the history totals from the published site, and reads only the new week', async () => {
  const origin = join(work, 'published-state');
  await publishWeek(origin, WEEK1, sampleWeek(1));
  await publishWeek(origin, WEEK2, sampleWeek(2));
  const downloads = await servePortal({ dir: origin });
  const site = join(work, 'site-state-first');
  const siteServer = await servePortal({ dir: site }); // listen first: the site's base URL is its address
  try {
    const build = (n: string, root: string) =>
      buildPortal({
        root,
        out: join(work, `site-state-${n}`),
        dataDir: join(work, `data-state-${n}`),
        baseUrl: siteServer.url,
        snapshotsUrl: downloads.url,
      });
    await build('first', join(work, 'remote-state-first'));
    assert.ok((await readdir(join(site, 'portal-state', 'history'))).includes('state.json'));
    await publishWeek(origin, WEEK3, sampleWeek(1));
    const remoteRoot = join(work, 'remote-state');
    const built = await build('remote', remoteRoot);
    const fetched = await fetchedFiles(remoteRoot);
    const small = ['SHA256SUMS', 'digest.json', 'manifest.json'];
    assert.deepEqual(fetched, {
      '2026-11-16': small,
      '2026-11-23': small,
      '2026-11-30': ['SHA256SUMS', 'changes.parquet', 'digest.json', 'documents.parquet', 'manifest.json'],
    });
    // index.json, three folders' small files, the new week's two tables and the five files of the totals
    assert.equal(built.fetched?.files, 1 + 3 * 3 + 2 + 5);
    // the same site as a build that read every table of every week
    await buildPortal({
      root: origin,
      out: join(work, 'site-state-local'),
      dataDir: join(work, 'data-state-local'),
      baseUrl: siteServer.url,
      downloadsUrl: downloads.url,
    });
    assert.deepEqual(
      await siteTree(join(work, 'site-state-remote')),
      await siteTree(join(work, 'site-state-local')),
    );
  } finally {
    await siteServer.close();
    await downloads.close();
  }
});

test('a file that does not match its manifest is refused and nothing is built from it', async () => {
  const remoteRoot = join(work, 'remote-tampered');
  const tampered = join(work, 'tampered');
  await publishWeek(tampered, WEEK1, source(week1()));
  const digest = join(tampered, '2026-11-16', 'digest.json');
  const text = await readFile(digest, 'utf8');
  await writeFile(digest, text.replace('"available":', '"available":1'));
  const tamperedServer = await servePortal({ dir: tampered });
  try {
    await assert.rejects(
      buildPortal({
        root: remoteRoot,
        out: join(work, 'site-tampered'),
        dataDir: join(work, 'data-tampered'),
        snapshotsUrl: tamperedServer.url,
      }),
      { code: 'corrupt', message: /digest\.json: its SHA-256 is [0-9a-f]{64}, the manifest says/ },
    );
    await assert.rejects(stat(join(remoteRoot, 'index.json')), { code: 'ENOENT' });
  } finally {
    await tamperedServer.close();
  }
});

test('a snapshots URL that does not answer is one clear error', async () => {
  await assert.rejects(
    buildPortal({
      root: join(work, 'remote-missing'),
      out: join(work, 'site-missing'),
      dataDir: join(work, 'data-missing'),
      snapshotsUrl: `${server.url}no-such-folder/`,
    }),
    { code: 'unavailable', message: /no-such-folder\/index\.json: answered 404/ },
  );
});
