/**
 * The CDXJ index as a ZipNum cluster (pywb's format, Common Crawl's and WACZ's): blocks of sorted
 * lines, each its own gzip member, and one secondary-index line per block; lookups by URL read only
 * the blocks the secondary index names; verify's reading finds every way the two can disagree.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { getSurt } from 'warcio';
import { cdxjLine } from '../../pipeline/archive/cdxj-fields.ts';
import { CDX_GZ_FILE, IDX_FILE, openZipNum, writeZipNum, zipNumLines } from '../../pipeline/archive/index.ts';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A capture's line as the indexer writes it. */
function line(url: string, second: number, offset: number): string {
  return cdxjLine({
    urlkey: getSurt(url),
    timestamp: `2026011900000${second}`,
    url,
    mime: 'text/turtle',
    status: 200,
    digest: `${offset}`.padStart(64, '0'),
    length: 700,
    offset,
    filename: '2026-01-19-00000.warc.gz',
  });
}

/** Sorted lines of captures: some URLs several times (runs across block boundaries), two URLs of one SURT. */
function captures(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    const url = `http://pld${i % 7}.example/doc/${i}`;
    for (let c = 0; c <= i % 4; c++) lines.push(line(url, c, 700 * (lines.length + 1)));
  }
  // http://www.x.example/a and http://x.example/a share a SURT: the URL tells them apart
  lines.push(line('http://www.x.example/a', 1, 700 * (lines.length + 1)));
  lines.push(line('http://x.example/a', 2, 700 * (lines.length + 1)));
  return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

async function written(lines: readonly string[], blockLines: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'zipnum-'));
  dirs.push(dir);
  await writeZipNum(lines, dir, blockLines);
  return dir;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

test('each block is its own gzip member, and index.idx is pywb’s line per block: key, file, offset, length, number from 1', async () => {
  const lines = captures().slice(0, 7);
  const dir = await written(lines, 3);
  const cdx = readFileSync(join(dir, CDX_GZ_FILE));
  const idx = readFileSync(join(dir, IDX_FILE), 'utf8').trimEnd().split('\n');
  assert.equal(idx.length, 3);
  let end = 0;
  idx.forEach((entry, i) => {
    // as pywb's IDXObject and ReplayWeb.page's loadIDX split it
    const [key, part, offset, length, block] = entry.split('\t');
    assert.equal(part, CDX_GZ_FILE);
    assert.equal(Number(offset), end);
    assert.equal(Number(block), i + 1);
    const text = gunzipSync(cdx.subarray(Number(offset), Number(offset) + Number(length))).toString();
    assert.deepEqual(text.trimEnd().split('\n'), lines.slice(i * 3, i * 3 + 3));
    assert.equal(key, lines[i * 3].slice(0, lines[i * 3].indexOf(' {')));
    end += Number(length);
  });
  assert.equal(end, cdx.length);
  assert.equal(gunzipSync(cdx).toString(), `${lines.join('\n')}\n`, 'the whole file gunzips to the index');
});

test('a lookup by URL finds exactly its captures, also when they run across blocks', async () => {
  const lines = captures();
  for (const blockLines of [1, 2, 5, 1000]) {
    const index = await openZipNum(await written(lines, blockLines));
    const urls = new Set(lines.map((l) => JSON.parse(l.slice(l.indexOf(' {') + 1)).url as string));
    for (const url of urls) {
      const expected = lines.filter((l) => JSON.parse(l.slice(l.indexOf(' {') + 1)).url === url);
      const found = (await index.captures(url)).map((c) => c.offset);
      assert.deepEqual(
        found,
        expected.map((l) => JSON.parse(l.slice(l.indexOf(' {') + 1)).offset),
        `${url} in blocks of ${blockLines}`,
      );
    }
    for (const absent of ['http://aaa.example/', 'http://pld3.example/doc/nothing', 'http://zzz.example/']) {
      assert.deepEqual(await index.captures(absent), [], absent);
    }
  }
});

test('verify reads every line back, and a secondary index or blocks that disagree are corrupt', async () => {
  const lines = captures();
  const dir = await written(lines, 4);
  assert.deepEqual(await all(zipNumLines(dir)), lines);
  const idx = readFileSync(join(dir, IDX_FILE), 'utf8');
  const cdx = readFileSync(join(dir, CDX_GZ_FILE));
  const entries = idx.trimEnd().split('\n');
  const second = entries[1].split('\t');
  const mutants: Record<string, () => void> = {
    'an offset moved': () =>
      writeFileSync(
        join(dir, IDX_FILE),
        idx.replace(entries[1], [second[0], second[1], '3', ...second.slice(3)].join('\t')),
      ),
    'a key that is not the block’s': () =>
      writeFileSync(
        join(dir, IDX_FILE),
        idx.replace(entries[1], ['com,other)/ 2026', ...second.slice(1)].join('\t')),
      ),
    'blocks out of order': () => {
      const [a, b] = [entries[0].split('\t'), entries[1].split('\t')];
      const first = cdx.subarray(0, Number(a[3]));
      const next = cdx.subarray(Number(b[2]), Number(b[2]) + Number(b[3]));
      writeFileSync(
        join(dir, CDX_GZ_FILE),
        Buffer.concat([next, first, cdx.subarray(first.length + next.length)]),
      );
      writeFileSync(
        join(dir, IDX_FILE),
        idx
          .replace(entries[0], [b[0], a[1], '0', b[3], '1'].join('\t'))
          .replace(entries[1], [a[0], a[1], b[3], a[3], '2'].join('\t')),
      );
    },
    'bytes after the last block': () => appendFileSync(join(dir, CDX_GZ_FILE), 'x'),
    'a block damaged': () => {
      const damaged = Buffer.from(cdx);
      damaged[Number(second[2]) + 20] ^= 0xff;
      writeFileSync(join(dir, CDX_GZ_FILE), damaged);
    },
    'a line of index.idx cut short': () => writeFileSync(join(dir, IDX_FILE), idx.slice(0, -1)),
  };
  for (const [what, mutate] of Object.entries(mutants)) {
    mutate();
    await assert.rejects(all(zipNumLines(dir)), { code: 'corrupt' }, what);
    writeFileSync(join(dir, IDX_FILE), idx);
    writeFileSync(join(dir, CDX_GZ_FILE), cdx);
  }
  assert.equal((await all(zipNumLines(dir))).length, lines.length, 'restored');
});

test('an archive without a response record has an empty index, which reads and verifies as such', async () => {
  const dir = await written([], 300);
  assert.equal(readFileSync(join(dir, CDX_GZ_FILE)).length, 0);
  assert.equal(readFileSync(join(dir, IDX_FILE)).length, 0);
  assert.deepEqual(await all(zipNumLines(dir)), []);
  assert.deepEqual(await (await openZipNum(dir)).captures('http://x.example/'), []);
});
