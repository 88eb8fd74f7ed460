/**
 * The crawl notes what the CDXJ index needs of each record as it writes it; the index built from
 * the notes must be the lines Webrecorder's indexer writes reading the gzipped files, and notes that
 * are missing, cut short, damaged or left by a crashed run must never change a line.
 */
import assert from 'node:assert/strict';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { cdxjEntries, openCrawlArchive, warcFilesIn } from '../../pipeline/archive/index.ts';
import type { CrawlConfig } from '../../pipeline/core/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { configFor, startServer, type TestServer } from '../web/http-server.ts';
import { indexerLines } from './warc-reader.ts';

let server: TestServer;
let config: CrawlConfig;
const dir = mkdtempSync(join(tmpdir(), 'cdxj-notes-'));

before(async () => {
  server = await startServer((req, res) => {
    if (req.url === '/robots.txt') return void res.end('User-agent: *\n');
    // a header value outside ASCII: a head the notes leave to the indexer
    if (req.url?.startsWith('/latin1/')) res.setHeader('X-Title', 'caf\u00e9');
    res
      .writeHead(200, { 'Content-Type': 'text/turtle; charset=utf-8' })
      .end(`<${req.url}> <http://p/> "o" .\n`);
  });
  // a few KiB per file, so that the documents roll over into several files
  config = configFor(server.port, { warcFileBytes: 4096 });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function crawlInto(warc: string, paths: readonly string[], crawlConfig = config): Promise<void> {
  const archive = openCrawlArchive({
    dir: warc,
    prefix: 'notes',
    config: crawlConfig,
    now: () => Date.now(),
  });
  const fetcher = createFetcher(crawlConfig, undefined, { observers: [archive] });
  try {
    for (const path of paths) await fetcher.fetchDocument(`http://a.example.org${path}`);
  } finally {
    await fetcher.close();
    await archive.close();
  }
}

async function ours(warc: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of cdxjEntries(warc, warcFilesIn(warc))) lines.push(line);
  return lines;
}

const indexers = (warc: string) => indexerLines(warc, warcFilesIn(warc));

const notesOf = (warc: string) => warcFilesIn(warc).map((name) => join(warc, `${name}.cdxj-notes`));

test('notes written by the crawl give the indexer lines, also where the notes are missing or damaged', async () => {
  const warc = join(dir, 'crawl');
  const paths = Array.from({ length: 12 }, (_, i) => (i % 4 === 1 ? `/latin1/${i}` : `/doc/${i}?b=${i}&a=1`));
  await crawlInto(warc, paths);
  const notes = notesOf(warc);
  assert.ok(notes.length >= 3, 'several files');
  assert.ok(notes.every((file) => existsSync(file)));
  const text = notes.map((file) => readFileSync(file, 'utf8')).join('');
  assert.match(text, / \?\n/, 'a response left to the indexer');
  assert.match(text, /^\d+ \d+ -$/m, 'members with no line');
  const expected = await indexers(warc);
  assert.equal(expected.length, paths.length + 1, 'every document and robots.txt');
  assert.deepEqual(await ours(warc), expected);

  // notes cut short, with a damaged line, naming a member that is not there, or gone: the file is read
  const [first, second, third] = notes;
  writeFileSync(first, readFileSync(first, 'utf8').split('\n').slice(0, -2).join('\n'));
  writeFileSync(second, readFileSync(second, 'utf8').replace(/^(\d+) (\d+)/m, '$1 7$2'));
  writeFileSync(
    third,
    readFileSync(third, 'utf8')
      .replace(/"status":"200"/, '"status":"404"')
      .replace(/^\d+/m, 'x'),
  );
  rmSync(notes.at(-1)!, { force: true });
  assert.deepEqual(await ours(warc), expected);
});

/** Whether a file's notes cover it exactly: its last note ends at the file's size. */
function covered(warc: string, name: string): boolean {
  const last = readFileSync(join(warc, `${name}.cdxj-notes`), 'utf8')
    .trimEnd()
    .split('\n')
    .at(-1)!;
  const [offset, length] = last.split(' ').map(Number);
  return offset + length === statSync(join(warc, name)).size;
}

test('a crawl resumed on a whole file goes on with its notes; on a torn one, removes them', async () => {
  const warc = join(dir, 'resumed');
  // one file, whatever the crawls add to it
  const oneFile = { ...config, warcFileBytes: 1 << 30 };
  await crawlInto(warc, ['/doc/1', '/doc/2'], oneFile);
  const name = warcFilesIn(warc).at(-1)!;
  // resumed on a whole file (a publish run again after a crash): the notes go on and still cover it
  await crawlInto(warc, ['/doc/3'], oneFile);
  assert.equal(warcFilesIn(warc).at(-1), name, 'the same file goes on');
  assert.ok(covered(warc, name));
  assert.deepEqual(await ours(warc), await indexers(warc));

  // a crash tore the file's last record: the resumed crawl cuts it off and removes the notes
  const member = gzipSync(Buffer.from(`WARC/1.1\r\nWARC-Type: response\r\n${'x'.repeat(3000)}`));
  appendFileSync(join(warc, name), member.subarray(0, member.length >> 1));
  await crawlInto(warc, ['/doc/4', '/latin1/5', '/doc/6'], oneFile);
  assert.equal(warcFilesIn(warc).length, 1);
  assert.ok(!existsSync(join(warc, `${name}.cdxj-notes`)), 'the torn file has no notes');
  assert.deepEqual(await ours(warc), await indexers(warc));
});
