/**
 * One hostile page must cost one document, never the week: a link to an IRI of megabytes, a
 * redirect to one, and such a line in a kernel list. A 3,000,000-character link was once fetched,
 * archived, and then stopped every later publish at the CDXJ sort.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MAX_URL_LENGTH } from '../../pipeline/core/index.ts';
import { openDuckDb } from '../../pipeline/snapshot/duckdb-session.ts';
import { runCli, snapshotCliArgs } from '../commands/cli-process.ts';
import { startServer, type TestServer } from '../web/http-server.ts';

const HUGE = `http://far.example/${'x'.repeat(3_000_000)}`;
const BORDER = `http://far.example/${'y'.repeat(MAX_URL_LENGTH - 'http://far.example/'.length)}`;

let server: TestServer;
let work: string;

before(async () => {
  server = await startServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === '/links')
      return void res
        .writeHead(200, { 'content-type': 'text/turtle' })
        .end(
          `<http://hostile.example/links> <http://ex.org/p> <${HUGE}>, <${BORDER}>, <http://hostile.example/fine> .`,
        );
    if (path === '/redirect')
      return void res.writeHead(302, { location: `http://far.example/${'z'.repeat(MAX_URL_LENGTH)}` }).end();
    res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://ex.org/s> <http://ex.org/p> "fine" .');
  });
  work = await mkdtemp(join(tmpdir(), 'long-iris-'));
});
after(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

test('a link to an IRI of 3,000,000 characters and a redirect past the bound cost nothing and one document; the week publishes', async () => {
  const kernel = join(work, 'kernel.txt');
  // six kernel documents: the adaptive crawl may take six links, more than there are under the bound
  await writeFile(
    kernel,
    ['links', 'redirect', 'a', 'b', 'c', 'd'].map((p) => `http://hostile.example/${p}\n`).join(''),
  );
  const out = join(work, 'snapshots');
  const run = await runCli([
    ...snapshotCliArgs({ kernel, out, now: '2026-01-05T00:00:00Z', resolve: `*=127.0.0.1:${server.port}` }),
    ...['--delay', '0.005', '--adaptive-rounds', '2'],
  ]);
  assert.equal(run.status, 0, run.stderr);
  const session = await openDuckDb();
  const rows = (
    await session.connection.runAndReadAll(
      `SELECT url, error FROM read_parquet('${out}/2026-01-05/documents.parquet') ORDER BY url`,
    )
  ).getRows();
  session.close();
  const byUrl = new Map(rows.map(([url, error]) => [String(url), error]));
  assert.equal(byUrl.get('http://hostile.example/redirect'), 'redirect_invalid');
  assert.ok(byUrl.has('http://hostile.example/fine'), 'the ordinary link was followed');
  assert.ok(byUrl.has(BORDER), 'a link of exactly the bound is followed');
  assert.ok(
    [...byUrl.keys()].every((url) => url.length <= MAX_URL_LENGTH),
    'no URL past the bound was attempted',
  );
  const verify = await runCli(['verify', '--root', out]);
  assert.equal(verify.status, 0, verify.stderr);
});

test('a kernel line of 10 MB is refused with its file and line, exit 2, quoting only the start of it', async () => {
  const kernel = join(work, 'huge-kernel.txt');
  await writeFile(kernel, `http://hostile.example/fine\nhttp://far.example/${'q'.repeat(10_000_000)}\n`);
  const run = await runCli([
    ...snapshotCliArgs({
      kernel,
      out: join(work, 'refused'),
      now: '2026-01-05T00:00:00Z',
      resolve: `*=127.0.0.1:${server.port}`,
    }),
  ]);
  assert.equal(run.status, 2, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(`huge-kernel\\.txt:2: expected an http\\(s\\) URI of at most ${MAX_URL_LENGTH} characters`),
  );
  assert.ok(run.stderr.length < 2000, `stderr of ${run.stderr.length} characters`);
  assert.equal(await readFile(kernel, 'utf8').then((t) => t.length > 10_000_000), true);
});
