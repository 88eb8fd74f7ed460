import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { type PortalServer, servePortal } from '../../pipeline/portal/index.ts';
import { listSnapshots, openDuckDb, queryRows } from '../../pipeline/snapshot/index.ts';
import { publishSampleWeeks } from '../snapshot/sample-crawl.ts';

/**
 * The portal's promise to the community: `wget -x -nH -i <base-url>urls.txt` yields a folder that
 * `observatory verify --root snapshots` checks. The portal is built by the CLI from a working
 * directory outside the repository, into a folder outside it (Astro must not resolve its packages
 * from there), then served and mirrored over real HTTP the way wget would.
 */
const CLI = new URL('../../pipeline/cli.ts', import.meta.url).pathname;
let work: string;
let root: string;
let server: PortalServer;
let urls: string[];

const observatory = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: work, encoding: 'utf8' });

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'portal-mirror-'));
  root = join(work, 'snapshots');
  await publishSampleWeeks(root);
  // listen first: urls.txt carries the served address
  server = await servePortal({ dir: join(work, 'site') });
  const built = observatory(
    'portal',
    ...['--root', root, '--out', join(work, 'site'), '--data', join(work, 'data'), '--base-url', server.url],
  );
  assert.equal(built.status, 0, built.stderr);
  urls = (await (await fetch(`${server.url}urls.txt`)).text()).trim().split('\n');
  // wget -x -nH: one file per URL, at its path without the host
  for (const url of urls) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
    const path = join(work, 'mirror', decodeURIComponent(new URL(url).pathname));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, Buffer.from(await res.arrayBuffer()));
  }
});

after(async () => {
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

test('urls.txt lists the catalogue, every file and each snapshot’s own file list', async () => {
  const catalogue = await listSnapshots(root);
  assert.equal(urls[0], `${server.url}snapshots/index.json`);
  for (const e of catalogue) {
    const list = `${server.url}snapshots/${e.name}/urls.txt`;
    assert.ok(urls.includes(list), list);
    const own = (await (await fetch(list)).text()).trim().split('\n');
    assert.ok(
      own.length >= 8 &&
        own.every((u) => urls.includes(u) && u.startsWith(`${server.url}snapshots/${e.name}/`)),
    );
  }
  assert.deepEqual(
    JSON.parse(await readFile(join(work, 'mirror/snapshots/index.json'), 'utf8')).snapshots,
    catalogue,
  );
});

test('observatory verify passes on the mirror made from urls.txt', () => {
  const r = observatory('verify', '--root', join(work, 'mirror/snapshots'));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.match(/^ok /gm)?.length, 2, r.stdout);
});

test('verify fails in the error vocabulary when there is nothing to verify', async () => {
  const bare = join(work, 'bare');
  await mkdir(bare);
  for (const [where, message] of [
    [join(work, 'nonexistent'), /no such folder, nothing to verify \[invalid_input\]$/],
    [bare, /no index\.json in .*: nothing to verify .*\[invalid_input\]$/],
  ] as const) {
    const r = observatory('verify', '--root', where);
    assert.equal(r.status, 2, where);
    assert.equal(r.stdout, '');
    assert.match(r.stderr.trim(), message);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
});

test('each table’s URL list names every snapshot’s file in the hive view, and DuckDB prunes a list of them', async () => {
  const catalogue = await listSnapshots(root);
  const list = (await (await fetch(`${server.url}snapshots/tables/documents/urls.txt`)).text())
    .trim()
    .split('\n');
  assert.deepEqual(
    list,
    catalogue.map(
      (e) => `${server.url}snapshots/tables/documents/kind=weekly/date=${e.name}/${e.name}.parquet`,
    ),
  );
  const session = await openDuckDb();
  try {
    // the Data page's recipe, over the files fetched from those URLs (this DuckDB has no httpfs)
    const local: string[] = [];
    for (const url of list) {
      const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
      const name = url.split('/').at(-1) ?? '';
      assert.deepEqual(
        bytes,
        await readFile(join(root, name.replace('.parquet', ''), 'documents.parquet')),
        url,
      );
      const path = join(work, 'view', decodeURIComponent(new URL(url).pathname));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, bytes);
      local.push(path);
    }
    await writeFile(join(work, 'view-urls.txt'), `${local.join('\n')}\n`);
    await session.connection.run(
      `SET VARIABLE files = (SELECT list(column0) FROM read_csv('${join(work, 'view-urls.txt')}', header = false, columns = {'column0': 'VARCHAR'}))`,
    );
    const second = catalogue[1].name;
    const where = `FROM read_parquet(getvariable('files'), hive_partitioning = true) WHERE kind = 'weekly' AND date >= DATE '${second}'`;
    const rows = await queryRows(session.connection, `SELECT date::VARCHAR, count(*) ${where} GROUP BY ALL`);
    const [[documents]] = await queryRows(
      session.connection,
      `SELECT count(*) FROM read_parquet('${join(root, second, 'documents.parquet')}')`,
    );
    assert.deepEqual(rows, [[second, documents]]);
    const [[, plan]] = await queryRows(session.connection, `EXPLAIN ANALYZE SELECT count(*) ${where}`);
    assert.match(String(plan), /Scanning Files: 1\/2/);
  } finally {
    session.close();
  }
});
