/**
 * The CDXJ draft of a publish runs in a worker whose heap is capped; a worker that runs out of it
 * must not cost the index: the lines are written again on the main thread.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cdxjEntries, openCrawlArchive, warcFilesIn } from '../../pipeline/archive/index.ts';
import { draftCdxj } from '../../pipeline/snapshot/warc-output.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { configFor, startServer } from '../web/http-server.ts';

let dir: string;
let warc: string;
let expected: string[];

before(async () => {
  const server = await startServer((req, res) => {
    if (req.url === '/robots.txt') return void res.end('User-agent: *\n');
    res
      .writeHead(200, { 'Content-Type': 'application/n-triples' })
      .end(`<${req.url}> <http://p.example/> "o" .\n`);
  });
  dir = mkdtempSync(join(tmpdir(), 'cdxj-draft-'));
  warc = join(dir, 'warc');
  const config = configFor(server.port);
  const archive = openCrawlArchive({ dir: warc, prefix: 'draft', config, now: () => Date.now() });
  const fetcher = createFetcher(config, undefined, { observers: [archive] });
  try {
    for (let i = 0; i < 20; i++) await fetcher.fetchDocument(`http://a.example.org/doc/${i}`);
  } finally {
    await fetcher.close();
    await archive.close();
    await server.close();
  }
  expected = [];
  for await (const entry of cdxjEntries(warc, warcFilesIn(warc))) expected.push(entry);
});
after(() => rmSync(dir, { recursive: true, force: true }));

for (const [what, heapMb] of [
  ['in its worker', undefined],
  // 6 MiB: the worker runs out while loading the indexer (measured: 3-6 MiB do; under 3 MiB V8
  // cannot even create the worker's isolate and ends the process, the case a heap of 48 cannot meet)
  ['on the main thread when the worker runs out of its heap', 6],
] as const) {
  test(`the draft holds every CDXJ line of the archive, written ${what}`, async () => {
    const scratch = mkdtempSync(join(dir, 'scratch-'));
    const draft = await draftCdxj({ dir: warc, files: warcFilesIn(warc) }, scratch, heapMb);
    assert.ok(draft);
    assert.equal(expected.length, 21, expected.join('\n')); // robots.txt and 20 documents
    assert.equal(draft.lines, expected.length);
    assert.deepEqual(readFileSync(draft.file, 'utf8').trim().split('\n'), expected);
  });
}
