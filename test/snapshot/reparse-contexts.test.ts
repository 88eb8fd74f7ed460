/**
 * A weekly snapshot whose JSON-LD document names a remote context (behind a redirect), crawled over
 * HTTP and published; `reparse` answers the context from the archive through the folder's index:
 * the ZipNum index a folder of schema 6 publishes, and the plain index.cdxj of a folder of schema
 * 5. Without the context's lines in the index, the document's statements cannot be read again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { writeZipNum } from '../../pipeline/archive/index.ts';
import { clockStartingAt, silentLogger } from '../../pipeline/core/index.ts';
import { runWeeklySnapshot } from '../../pipeline/observe/index.ts';
import { openDuckDb, reparseSnapshot, sqlString } from '../../pipeline/snapshot/index.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';
import { asSchema5 } from './as-schema-5.ts';
import { relist } from './relist.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK = '2026-01-05';
const DOC = 'http://data.example/thing';
const CONTEXT = 'http://vocab.example/ctx';

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  const json = (body: unknown) =>
    void res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify(body));
  if (path === '/robots.txt') return void res.writeHead(404).end();
  if (req.headers.host?.startsWith('data.example') && path === '/thing')
    return void json({
      '@context': CONTEXT,
      '@id': DOC,
      name: 'a thing',
      knows: { '@id': 'http://data.example/other' },
    });
  if (path === '/ctx') return void res.writeHead(301, { location: '/context.jsonld' }).end();
  if (path === '/context.jsonld')
    return void json({
      '@context': {
        name: 'http://schema.org/name',
        knows: { '@id': 'http://xmlns.com/foaf/0.1/knows', '@type': '@id' },
      },
    });
  res.writeHead(404).end();
}

let server: TestServer;
let root: string;

before(async () => {
  server = await startServer(route);
  root = mkdtempSync(join(tmpdir(), 'reparse-contexts-'));
  const outcome = await runWeeklySnapshot({
    root,
    config: configFor(server.port, { delayMs: 1 }),
    logger: silentLogger,
    clock: clockStartingAt(W0),
    kernel: [DOC],
    adaptiveRounds: 0,
  });
  assert.equal(outcome.status, 'published');
});
after(() => server.close());

/** The statements of the document's graph in a published folder, sorted. */
async function statements(folder: string): Promise<string[][]> {
  const session = await openDuckDb();
  try {
    const rows = await session.connection.runAndReadAll(`SELECT subject, predicate, object
      FROM read_parquet(${sqlString(join(folder, 'quads.parquet'))}) WHERE graph = ${sqlString(DOC)} ORDER BY ALL`);
    return rows.getRows() as string[][];
  } finally {
    session.close();
  }
}

/** A copy of the published week in a root of its own, made into what `shape` says. */
async function copy(what: string, shape: (folder: string) => Promise<unknown>): Promise<string> {
  const folder = join(mkdtempSync(join(tmpdir(), `reparse-contexts-${what}-`)), WEEK);
  await cp(join(root, WEEK), folder, { recursive: true });
  await shape(folder);
  return folder;
}

async function reparsed(folder: string): Promise<string[][]> {
  const out = mkdtempSync(join(tmpdir(), 'reparse-contexts-out-'));
  await reparseSnapshot({ folder, root: out, clock: clockStartingAt(W0 + 86_400_000) });
  return statements(join(out, WEEK));
}

test('the crawl read the document through its remote context, and archived the context exchange', async () => {
  assert.deepEqual(await statements(join(root, WEEK)), [
    [DOC, 'http://schema.org/name', 'a thing'],
    [DOC, 'http://xmlns.com/foaf/0.1/knows', 'http://data.example/other'],
  ]);
  const index = gunzipSync(readFileSync(join(root, WEEK, 'index.cdx.gz'))).toString();
  assert.ok(index.includes(`"url":"${CONTEXT}"`), 'the context is in the index');
});

test('reparse answers the context from the ZipNum index, and from a schema-5 folder’s index.cdxj', async () => {
  const published = await statements(join(root, WEEK));
  assert.deepEqual(await reparsed(await copy('zipnum', async () => {})), published);
  assert.deepEqual(await reparsed(await copy('schema-5', asSchema5)), published);
});

test('without the context in the ZipNum index, reparse cannot read the document again', async () => {
  const folder = await copy('no-context', async (f) => {
    const lines = gunzipSync(readFileSync(join(f, 'index.cdx.gz')))
      .toString()
      .trimEnd()
      .split('\n');
    const left = lines.filter((l) => !l.includes('"url":"http://vocab.example/'));
    assert.ok(left.length < lines.length);
    await writeZipNum(left, f);
    const manifest = JSON.parse(readFileSync(join(f, 'manifest.json'), 'utf8'));
    manifest.files.find((e: { name: string }) => e.name === 'index.cdx.gz').rows = left.length;
    writeFileSync(join(f, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    relist(f, ['index.cdx.gz', 'index.idx']);
  });
  assert.deepEqual(await reparsed(folder), []);
});
