/**
 * The archive's index as a ZipNum cluster against the plain index.cdxj it replaces (#33 item 2):
 * bytes on disk, and the time of lookups by URL as reparse makes them (openCaptureLookup: the
 * plain file scanned by DuckDB, as before; ZipNum: a binary search of index.idx, then the blocks
 * the URL's key can lie in), on a demo-size index and a 200,000-record one, at several block sizes.
 * The lines are made as the indexer writes them (SURT, timestamp, url, mime, status, a SHA-256
 * digest, length, offset, file), URLs spread over PLDs as the simulated Web's are; BENCH_CDX_FILE
 * adds a real index.cdxj (a demo week's). Every lookup's answer is checked to be the same in both.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getSurt } from 'warcio';
import { cdxjLine } from '../../pipeline/archive/cdxj-fields.ts';
import { BLOCK_LINES, CDX_GZ_FILE, IDX_FILE, writeZipNum } from '../../pipeline/archive/zipnum.ts';
import { seededRandom } from '../../pipeline/schedule/index.ts';
import {
  LOOKUP_MEMORY_LIMIT,
  openCaptureLookup,
  PLAIN_CDXJ_FILE,
} from '../../pipeline/snapshot/capture-index.ts';
import { openDuckDb } from '../../pipeline/snapshot/index.ts';

const BLOCK_SIZES = [100, BLOCK_LINES, 1000, 3000];
const MIMES = [
  'text/turtle',
  'application/rdf+xml',
  'application/n-triples',
  'application/ld+json',
  'text/html',
];

/** `count` index lines over `plds` PLDs, sorted in byte order as publishing sorts them. */
function syntheticLines(count: number, plds: number, seed: number): string[] {
  const random = seededRandom(seed);
  const hex = () =>
    Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  const lines: string[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const pld = Math.floor(random() ** 2 * plds);
    const url = `http://data${pld % 3}.pld${pld}.example/resource/Thing_${i}`;
    const length = 500 + Math.floor(random() * 1500);
    lines.push(
      cdxjLine({
        urlkey: getSurt(url),
        timestamp: `2026011900${String(Math.floor(i / 60) % 60).padStart(2, '0')}${String(i % 60).padStart(2, '0')}`,
        url,
        mime: MIMES[i % MIMES.length],
        status: random() < 0.9 ? 200 : 404,
        digest: Array.from({ length: 8 }, hex).join(''),
        length,
        offset,
        filename: `2026-01-19-${String(Math.floor(offset / 2 ** 30)).padStart(5, '0')}.warc.gz`,
      }),
    );
    offset += length;
  }
  return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

const urlOf = (line: string) => JSON.parse(line.slice(line.indexOf(' {') + 1)).url as string;

async function measure(name: string, lines: readonly string[], lookups: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cdx-index-bench-'));
  // as reparse looks captures up
  const session = await openDuckDb({ memoryLimit: LOOKUP_MEMORY_LIMIT });
  try {
    writeFileSync(join(dir, PLAIN_CDXJ_FILE), `${lines.join('\n')}\n`);
    const plainBytes = statSync(join(dir, PLAIN_CDXJ_FILE)).size;
    const random = seededRandom(lines.length);
    const urls = Array.from({ length: lookups }, () => urlOf(lines[Math.floor(random() * lines.length)]));
    const query = <T>(run: (c: typeof session.connection) => Promise<T>) => run(session.connection);
    const plain = await openCaptureLookup(dir, { files: [] }, query);
    let start = performance.now();
    const expected = [];
    for (const url of urls) expected.push(await plain.last(url));
    const plainMs = (performance.now() - start) / lookups;
    process.stdout.write(
      `| ${name} | ${lines.length.toLocaleString('en')} | plain index.cdxj | ${plainBytes.toLocaleString('en')} | 1.000 | ${plainMs.toFixed(2)} | 1.000 |\n`,
    );
    for (const blockLines of BLOCK_SIZES) {
      const { blocks } = await writeZipNum(lines, dir, blockLines);
      const idxBytes = statSync(join(dir, IDX_FILE)).size;
      const bytes = statSync(join(dir, CDX_GZ_FILE)).size + idxBytes;
      const zipnum = await openCaptureLookup(dir, { files: [{ name: IDX_FILE }] }, query);
      start = performance.now();
      for (const [i, url] of urls.entries()) {
        const found = await zipnum.last(url);
        if (JSON.stringify(found) !== JSON.stringify(expected[i]))
          throw new Error(
            `${url}: ZipNum found ${JSON.stringify(found)}, the plain index ${JSON.stringify(expected[i])}`,
          );
      }
      const ms = (performance.now() - start) / lookups;
      const chosen = blockLines === BLOCK_LINES ? ' (chosen)' : '';
      process.stdout.write(
        `| ${name} | ${lines.length.toLocaleString('en')} | ZipNum, ${blockLines} lines a block${chosen}, ${blocks} blocks (index.idx ${idxBytes.toLocaleString('en')} bytes) | ${bytes.toLocaleString('en')} | ${(bytes / plainBytes).toFixed(3)} | ${ms.toFixed(2)} | ${(ms / plainMs).toFixed(3)} |\n`,
      );
    }
  } finally {
    session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function (): Promise<void> {
  process.stdout.write(
    '| index | lines | form | bytes | bytes / plain | ms per lookup | lookup / plain |\n| --- | ---: | --- | ---: | ---: | ---: | ---: |\n',
  );
  if (process.env.BENCH_CDX_FILE) {
    const lines = readFileSync(process.env.BENCH_CDX_FILE, 'utf8').trimEnd().split('\n');
    await measure(`file ${process.env.BENCH_CDX_FILE}`, lines, 200);
  }
  // the demo's weekly folder: 1,497 lines over 120 PLDs
  await measure('demo-size (synthetic)', syntheticLines(1497, 120, 1), 200);
  await measure('200,000 records (synthetic)', syntheticLines(200_000, 652, 2), 40);
  process.stdout.write(`\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`);
}
