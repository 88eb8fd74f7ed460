/**
 * Remote JSON-LD contexts during reparse come from the snapshot's own WARC files: looked up in
 * the folder's index (the ZipNum index of schema 6, the plain index.cdxj of older folders),
 * redirects followed, the body decoded as the crawler decodes it; never the network.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { cdxjEntries, IDX_FILE, writeZipNum } from '../../pipeline/archive/index.ts';
import { readDocument } from '../../pipeline/rdf/index.ts';
import { archivedContextLoader } from '../../pipeline/snapshot/archived-contexts.ts';
import { LOOKUP_MEMORY_LIMIT, openCaptureLookup } from '../../pipeline/snapshot/capture-index.ts';
import { type DuckDbSession, openDuckDb } from '../../pipeline/snapshot/index.ts';

const CONTEXT = '{"@context": {"name": "http://schema.org/name"}}';
let folder: string;
let session: DuckDbSession;

async function response(url: string, statusline: string, headers: Record<string, string>, body: Buffer) {
  const record = WARCRecord.create(
    { url, type: 'response', warcVersion: 'WARC/1.1', statusline, httpHeaders: headers },
    [body],
  );
  return gzipSync(await WARCSerializer.serialize(record, { gzip: false }));
}

before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'archived-contexts-'));
  const members = [
    await response(
      'http://ctx.example/old',
      'HTTP/1.1 301 Moved Permanently',
      { Location: '/new' },
      Buffer.alloc(0),
    ),
    await response(
      'http://ctx.example/new',
      'HTTP/1.1 200 OK',
      { 'Content-Type': 'application/ld+json', 'Content-Encoding': 'gzip' },
      gzipSync(CONTEXT),
    ),
    // as https://schema.org answers: HTML, with a Link to the JSON-LD context
    await response(
      'http://vocab.example/',
      'HTTP/1.1 200 OK',
      {
        'Content-Type': 'text/html',
        Link: '</docs/context.jsonld>; rel="alternate"; type="application/ld+json"',
      },
      Buffer.from('<html><body>the vocabulary, for people</body></html>'),
    ),
    await response(
      'http://vocab.example/docs/context.jsonld',
      'HTTP/1.1 200 OK',
      { 'Content-Type': 'application/ld+json' },
      Buffer.from(CONTEXT),
    ),
  ];
  writeFileSync(join(folder, 's-00000.warc.gz'), Buffer.concat(members));
  const lines: string[] = [];
  for await (const line of cdxjEntries(folder, ['s-00000.warc.gz'])) lines.push(line);
  lines.sort();
  writeFileSync(join(folder, 'index.cdxj'), `${lines.join('\n')}\n`);
  // blocks of one line: a lookup must find each URL in the block the secondary index names
  await writeZipNum(lines, folder, 1);
  session = await openDuckDb();
});

after(() => session.close());

/** The index as a folder of schema 6 lists it (ZipNum) or as an older folder does (index.cdxj). */
const FORMS = { zipnum: [{ name: IDX_FILE }], 'plain CDXJ': [] } as const;

for (const [form, files] of Object.entries(FORMS)) {
  const loader = async (maxContextsPerCrawl = 10) =>
    archivedContextLoader(
      folder,
      await openCaptureLookup(folder, { files }, (run) => run(session.connection)),
      {
        maxContextsPerCrawl,
        maxRedirects: 5,
        maxBytes: 1 << 20,
        robotsMaxBytes: 1 << 19,
      },
      new Set(['s-00000.warc.gz']),
    );

  test(`${form}: a context is answered from its archived exchange, through its redirect, decoded`, async () => {
    assert.equal(await (await loader())('http://ctx.example/old'), CONTEXT);
    const read = await readDocument(
      {
        body: Buffer.from('{"@context": "http://ctx.example/old", "@id": "http://x.example/s", "name": "n"}'),
        contentType: 'application/ld+json',
        documentUrl: 'http://x.example/doc',
        loadContext: await loader(),
      },
      { cpuBudgetMs: 10_000, maxContexts: 8, heapMb: 128 },
    );
    assert.equal(read.error, null);
    assert.deepEqual(
      read.statements.map((s) => [s.subject, s.predicate, s.object]),
      [['http://x.example/s', 'http://schema.org/name', 'n']],
    );
  });

  test(`${form}: a context URL answering HTML with a Link to its JSON-LD alternate is followed there`, async () => {
    assert.equal(await (await loader())('http://vocab.example/'), CONTEXT);
  });

  test(`${form}: a context the crawl never fetched fails; past the per-crawl limit one is refused`, async () => {
    await assert.rejects((await loader())('http://ctx.example/elsewhere'), /not in the archive/);
    const limited = await loader(1);
    await limited('http://ctx.example/new');
    await assert.rejects(limited('http://ctx.example/old'), { code: 'context_limit' });
  });
}

test("plain CDXJ of a paper-size week (200,000 lines) is looked up within reparse's memory", async () => {
  const big = mkdtempSync(join(tmpdir(), 'archived-contexts-big-'));
  const url = (i: number) => `http://data${i % 3}.pld${i % 650}.example/resource/Thing_${i}`;
  const lines = Array.from(
    { length: 200_000 },
    (_, i) =>
      `example,pld${i % 650},data${i % 3})/resource/thing_${i} 20260119000000 ${JSON.stringify({
        url: url(i),
        mime: 'text/turtle',
        status: '200',
        digest: `sha256:${i.toString(16).padStart(64, '0')}`,
        length: '1000',
        offset: String(i * 1000),
        filename: 's-00000.warc.gz',
      })}`,
  ).sort();
  writeFileSync(join(big, 'index.cdxj'), `${lines.join('\n')}\n`);
  const lookups = await openDuckDb({ memoryLimit: LOOKUP_MEMORY_LIMIT });
  try {
    const index = await openCaptureLookup(big, { files: [] }, (run) => run(lookups.connection));
    // before the index was read in 1 MiB buffers: "Out of Memory Error: could not allocate block"
    assert.deepEqual(await index.last(url(199_999)), {
      filename: 's-00000.warc.gz',
      offset: 199_999_000,
      length: 1000,
    });
  } finally {
    lookups.close();
    rmSync(big, { recursive: true, force: true });
  }
});
