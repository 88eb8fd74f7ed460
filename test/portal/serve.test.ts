import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildPortal, type PortalServer, servePortal } from '../../pipeline/portal/index.ts';
import { sendFile } from '../../pipeline/portal/serve-portal.ts';
import { listSnapshots } from '../../pipeline/snapshot/index.ts';
import { publishSampleWeeks } from '../snapshot/sample-crawl.ts';
import { openBrowser } from './browser.ts';

/**
 * The portal's server as query engines use it (DuckDB httpfs and WASM, pyarrow): ranged reads of
 * the published Parquet checked byte for byte against the file on disk, validators, CORS (in
 * Chromium, which enforces it), and no way out of the site. Also the `latest` alias it serves.
 */
let work: string;
let root: string;
let site: string;
let server: PortalServer;
/** The newest snapshot's documents.parquet: its URL on the portal and its bytes on disk. */
let parquetUrl: string;
let parquet: Buffer;
const SECRET = 'outside the site: never served\n';
const CLI = new URL('../../pipeline/cli.ts', import.meta.url).pathname;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'portal-serve-'));
  root = join(work, 'snapshots');
  site = join(work, 'site');
  await publishSampleWeeks(root);
  // listen first: the built site's absolute URLs carry the served address
  server = await servePortal({ dir: site });
  await buildPortal({ root, out: site, dataDir: join(work, 'data'), baseUrl: server.url });
  const newest = (await listSnapshots(root)).at(-1)!.name;
  parquetUrl = `${server.url}snapshots/${newest}/documents.parquet`;
  parquet = await readFile(join(root, newest, 'documents.parquet'));
  // what traversal must not reach: a file beside the site, and links inside the site pointing to it
  await writeFile(join(work, 'secret.txt'), SECRET);
  await symlink(join(work, 'secret.txt'), join(site, 'leak.txt'));
  await symlink(work, join(site, 'leak'));
});

after(async () => {
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** A request sent exactly as written (fetch would normalise `..` and `%2e%2e` before sending). */
function raw(path: string, method = 'GET'): Promise<{ status: number; body: string; location?: string }> {
  const { port } = new URL(server.url);
  return new Promise((done, fail) => {
    request({ host: '127.0.0.1', port, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body, location: res.headers.location }));
    })
      .on('error', fail)
      .end();
  });
}

test('single byte ranges: 206 with exactly the bytes on disk, 416 outside the file, 200 for the rest', async () => {
  const size = parquet.length;
  assert.ok(size > 100, 'a Parquet file large enough to cut into ranges');
  // [Range header, expected status, first byte, last byte (inclusive)]; null: no range asked
  const cases: [string | null, number, number, number][] = [
    [null, 200, 0, size - 1],
    ['bytes=0-3', 206, 0, 3], // the magic number PAR1
    ['bytes=-8', 206, size - 8, size - 1], // footer length and magic, what a Parquet reader asks first
    ['bytes=10-', 206, 10, size - 1],
    ['bytes=10-10', 206, 10, 10],
    [`bytes=5-${size + 1000}`, 206, 5, size - 1], // clamped to the file
    [`bytes=-${size + 1000}`, 206, 0, size - 1], // a suffix longer than the file is all of it
    [`bytes=${size - 1}-`, 206, size - 1, size - 1],
    [`bytes=${size}-`, 416, 0, -1],
    [`bytes=${size + 5}-${size + 9}`, 416, 0, -1],
    ['bytes=-0', 416, 0, -1],
    ['bytes=0-1,4-5', 200, 0, size - 1], // several ranges: the whole file (docs/portal.md)
    ['bytes=9-3', 200, 0, size - 1], // invalid, so ignored
    ['items=0-3', 200, 0, size - 1], // not bytes, so ignored
  ];
  for (const [range, status, first, last] of cases) {
    const res = await fetch(parquetUrl, { headers: range === null ? {} : { range } });
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, status, `${range}`);
    assert.equal(res.headers.get('accept-ranges'), 'bytes', `${range}`);
    assert.equal(res.headers.get('access-control-allow-origin'), '*', `${range}`);
    if (status === 416) {
      assert.equal(res.headers.get('content-range'), `bytes */${size}`, `${range}`);
      assert.equal(res.headers.get('content-length'), '0', `${range}`);
      assert.equal(body.length, 0, `${range}`);
      continue;
    }
    assert.deepEqual(body, parquet.subarray(first, last + 1), `${range}`);
    assert.equal(res.headers.get('content-length'), String(last - first + 1), `${range}`);
    assert.equal(
      res.headers.get('content-range'),
      status === 206 ? `bytes ${first}-${last}/${size}` : null,
      `${range}`,
    );
  }
});

test('a client that hung up before its file is sent is let go: nothing thrown, the server goes on', async () => {
  const path = join(root, (await listSnapshots(root)).at(-1)!.name, 'documents.parquet');
  const file = { path, size: parquet.length, mtime: new Date() };
  let thrown: unknown = 'not asked';
  const hungUp = createServer((req, res) => {
    // as when the client closed the connection while the server looked the file up
    res.destroy();
    try {
      sendFile(req, res, file, 200);
      thrown = null;
    } catch (error) {
      thrown = error;
    }
  });
  await new Promise<void>((listening) => hungUp.listen(0, '127.0.0.1', listening));
  const { port } = hungUp.address() as AddressInfo;
  await new Promise<void>((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/documents.parquet' });
    req.on('error', () => done());
    req.on('response', () => done());
    req.end();
  });
  hungUp.close();
  assert.equal(thrown, null);
  assert.equal((await fetch(parquetUrl)).status, 200);
});

test('HEAD answers with the headers of GET and no body', async () => {
  for (const range of ['bytes=-8', 'bytes=4-']) {
    const [get, head] = await Promise.all(
      ['GET', 'HEAD'].map((method) => fetch(parquetUrl, { method, headers: { range } })),
    );
    await get.arrayBuffer();
    assert.equal(head.status, 206);
    for (const name of ['content-range', 'content-length', 'accept-ranges', 'etag', 'last-modified'])
      assert.equal(head.headers.get(name), get.headers.get(name), `${range} ${name}`);
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  }
});

test('ETag: If-None-Match gives 304, a stale If-Range the whole file', async () => {
  const first = await fetch(parquetUrl);
  await first.arrayBuffer();
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
  assert.ok(first.headers.get('last-modified'));
  const cached = await fetch(parquetUrl, { headers: { 'if-none-match': `"other", ${etag}` } });
  assert.equal(cached.status, 304);
  assert.equal((await cached.arrayBuffer()).byteLength, 0);
  const changed = await fetch(parquetUrl, { headers: { 'if-none-match': '"other"' } });
  assert.deepEqual(Buffer.from(await changed.arrayBuffer()), parquet);
  const current = await fetch(parquetUrl, { headers: { range: 'bytes=0-3', 'if-range': etag } });
  assert.equal(current.status, 206);
  await current.arrayBuffer();
  // a client holding part of an older file must not get a range of the new one glued to it
  const stale = await fetch(parquetUrl, { headers: { range: 'bytes=0-3', 'if-range': '"0-0"' } });
  assert.equal(stale.status, 200);
  assert.deepEqual(Buffer.from(await stale.arrayBuffer()), parquet);
});

test('CORS preflight for a Range request is answered', async () => {
  const res = await fetch(parquetUrl, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://shell.duckdb.org',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'range',
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.match(res.headers.get('access-control-allow-methods')!, /\bGET\b/);
  assert.match(res.headers.get('access-control-allow-headers')!, /\brange\b/i);
});

test('a page of another origin reads a suffix range and its Content-Range in Chromium', async () => {
  // another port is another origin: Chromium preflights the suffix range (not a CORS-safelisted
  // Range value) and hides Content-Range unless the server exposes it
  const other = await servePortal({ dir: site });
  const browser = await openBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(other.url);
    const got = await page.evaluate(async (url) => {
      const res = await fetch(url, { headers: { range: 'bytes=-8' } });
      return {
        status: res.status,
        contentRange: res.headers.get('content-range'),
        bytes: [...new Uint8Array(await res.arrayBuffer())],
      };
    }, parquetUrl);
    assert.notEqual(new URL(other.url).origin, new URL(parquetUrl).origin);
    assert.deepEqual(got, {
      status: 206,
      contentRange: `bytes ${parquet.length - 8}-${parquet.length - 1}/${parquet.length}`,
      bytes: [...parquet.subarray(parquet.length - 8)],
    });
  } finally {
    await browser.close();
    await other.close();
  }
});

test('nothing outside the site is served: .., encoded dots, separators and symbolic links', async () => {
  assert.equal((await raw('/urls.txt')).status, 200, 'the probe itself reaches the server');
  for (const path of [
    '/../secret.txt',
    '/snapshots/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/snapshots/..%2f..%2fsecret.txt',
    '/snapshots/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/leak.txt',
    '/leak/secret.txt',
  ]) {
    const res = await raw(path);
    assert.equal(res.status, 404, path);
    assert.ok(!res.body.includes(SECRET.trim()), path);
  }
  assert.equal((await raw('/%E0%A4%A')).status, 400, 'malformed percent-encoding');
});

test('a folder without its slash is redirected on this host, never to another', async () => {
  for (const path of ['/snapshots', '/.//snapshots', '/./snapshots']) {
    const res = await raw(path);
    assert.equal(res.status, 301, path);
    assert.equal(res.location, '/snapshots/', path);
  }
});

test('the latest alias names the newest weekly snapshot with its files, beside its file list', async () => {
  const catalogue = await listSnapshots(root);
  const newest = catalogue.filter((e) => e.kind === 'weekly').at(-1)!;
  const latest = await (await fetch(`${server.url}snapshots/latest.json`)).json();
  assert.equal(latest.name, newest.name);
  assert.equal(latest.manifestSha256, newest.manifestSha256);
  assert.equal(latest.page, `${server.url}snapshots/${newest.name}/`);
  const names = latest.files.map((f: { name: string }) => f.name);
  for (const name of ['documents.parquet', 'quads.parquet', 'data.nq.gz', 'manifest.json', 'SHA256SUMS'])
    assert.ok(names.includes(name), name);
  for (const f of latest.files) {
    const body = Buffer.from(await (await fetch(f.url)).arrayBuffer());
    assert.equal(body.length, f.bytes, f.url);
    assert.equal(createHash('sha256').update(body).digest('hex'), f.sha256, f.url);
  }
  const list = async (name: string) => (await fetch(`${server.url}snapshots/${name}/urls.txt`)).text();
  assert.equal(await list('latest'), await list(newest.name));
  const urls = (await (await fetch(`${server.url}urls.txt`)).text()).split('\n');
  assert.ok(urls.includes(`${server.url}snapshots/latest.json`));
  const dataPage = await (await fetch(`${server.url}data/`)).text();
  for (const href of ['/snapshots/latest.json', '/snapshots/latest/urls.txt'])
    assert.ok(dataPage.includes(`href="${href}"`), href);
});

test('observatory portal --serve is this server: it answers a suffix range with CORS', async () => {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'portal',
      '--root',
      root,
      '--out',
      join(work, 'cli-site'),
      '--data',
      join(work, 'cli-data'),
      '--serve',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    // the command prints its address once the build is done, then serves until stopped
    const url = await new Promise<string>((done, fail) => {
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const m = /portal served at (\S+)/.exec(out);
        if (m) done(m[1]);
      });
      child.on('exit', (code) => fail(new Error(`portal --serve exited (${code}) before serving: ${out}`)));
    });
    const newest = (await listSnapshots(root)).at(-1)!.name;
    const res = await fetch(`${url}snapshots/${newest}/documents.parquet`, {
      headers: { range: 'bytes=-8' },
    });
    assert.equal(res.status, 206);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), parquet.subarray(parquet.length - 8));
  } finally {
    child.kill();
  }
});
