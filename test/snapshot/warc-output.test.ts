/**
 * The crawl's WARC archive published with its snapshot: files linked in under their crawl names,
 * listed in the manifest and SHA256SUMS, a sorted CDXJ index of every response record (a ZipNum
 * cluster: index.cdx.gz and index.idx), each documents.parquet pointer opening its document's
 * response; verify checks the pointers and the index, `--deep` the index against the WARC files; a
 * folder of schema 5, whose index is a plain index.cdxj, still verifies and reparses.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { BLOCK_LINES, writeZipNum } from '../../pipeline/archive/zipnum.ts';
import { clockStartingAt } from '../../pipeline/core/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import {
  openDuckDb,
  readManifest,
  reparseSnapshot,
  SNAPSHOT_SCHEMA_VERSION,
  verifySnapshot,
} from '../../pipeline/snapshot/index.ts';
import { archivedResponses } from '../archive/warc-reader.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { asSchema5 } from './as-schema-5.ts';
import { relist } from './relist.ts';

let sim: SimWeb;
let root: string;
let folder: string;
const W0 = Date.UTC(2026, 0, 5);

before(async () => {
  sim = await startSimWeb({ seed: 5, docs: 300, plds: 20, latencyScale: 0, faults: 0, now: W0 });
  root = mkdtempSync(join(tmpdir(), 'warc-output-'));
  const outcome = await simWeekly(sim, root, W0, rdfDocuments(sim, W0), {
    adaptiveRounds: 1,
    // small files, so that the crawl rolls over to several
    config: { warcFileBytes: 64 * 1024 },
  });
  assert.equal(outcome.status, 'published');
  folder = join(root, '2026-01-05');
});

after(() => sim.close());

async function pointers(): Promise<Array<[string, string, string, bigint, bigint]>> {
  const session = await openDuckDb();
  try {
    return (
      await session.connection.runAndReadAll(`SELECT url, final_url, warc_filename, warc_offset, warc_length
        FROM read_parquet('${join(folder, 'documents.parquet')}') WHERE downloaded_by = url AND status IS NOT NULL`)
    ).getRows() as Array<[string, string, string, bigint, bigint]>;
  } finally {
    session.close();
  }
}

test('the WARC files and their index are published, listed and checksummed', async () => {
  const manifest = await readManifest(folder);
  const warcs = manifest.files.filter((f) => f.name.endsWith('.warc.gz')).map((f) => f.name);
  assert.ok(warcs.length > 1, `rolled over to several files: ${warcs}`);
  assert.ok(warcs.every((name) => /^2026-01-05-\d{5}\.warc\.gz$/.test(name)));
  assert.equal(manifest.schemaVersion, SNAPSHOT_SCHEMA_VERSION);
  const sums = readFileSync(join(folder, 'SHA256SUMS'), 'utf8');
  for (const name of [...warcs, 'index.cdx.gz', 'index.idx'])
    assert.match(sums, new RegExp(`  ${name.replaceAll('.', '\\.')}\\n`));
  const report = await verifySnapshot(folder);
  assert.equal(report.files, manifest.files.length + 2);
});

test('every document row with a response points at its response record', async () => {
  const rows = await pointers();
  assert.ok(rows.length > 100);
  for (const [url, finalUrl, file, offset, length] of rows) {
    assert.ok(file, `${url} has a pointer`);
    const member = readFileSync(join(folder, file)).subarray(Number(offset), Number(offset + length));
    const record = gunzipSync(member).toString('latin1');
    assert.match(record, /^WARC\/1\.1\r\n/);
    assert.ok(record.includes('\r\nWARC-Type: response\r\n'), url);
    assert.ok(record.includes(`\r\nWARC-Target-URI: ${finalUrl}\r\n`), url);
  }
});

test('the index has one sorted line per response record, each naming a published file', async () => {
  // several gzip members, one per block: gunzip reads them as one stream
  const lines = gunzipSync(readFileSync(join(folder, 'index.cdx.gz')))
    .toString()
    .trimEnd()
    .split('\n');
  const bytes = lines.map((l) => Buffer.from(l));
  assert.deepEqual(
    bytes.map((b) => b.toString()),
    [...bytes].sort(Buffer.compare).map((b) => b.toString()),
  );
  const manifest = await readManifest(folder);
  assert.equal(manifest.files.find((f) => f.name === 'index.cdx.gz')?.rows, lines.length);
  const blocks = readFileSync(join(folder, 'index.idx'), 'utf8').trimEnd().split('\n').length;
  assert.equal(blocks, Math.ceil(lines.length / BLOCK_LINES));
  assert.equal(manifest.files.find((f) => f.name === 'index.idx')?.rows, blocks);
  const names = new Set(manifest.files.map((f) => f.name));
  const { responses } = archivedResponses(folder);
  assert.equal(lines.length, responses);
  for (const line of lines) assert.ok(names.has(JSON.parse(line.slice(line.indexOf('{'))).filename), line);
});

test('verify finds a pointer that does not open its record', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'warc-output-bad-'));
  const bad = join(copy, '2026-01-05');
  const session = await openDuckDb();
  try {
    const { connection } = session;
    await connection.run(
      `CREATE TABLE d AS SELECT * FROM read_parquet('${join(folder, 'documents.parquet')}')`,
    );
    await connection.run(
      'UPDATE d SET warc_offset = warc_offset + 1 WHERE warc_offset = (SELECT max(warc_offset) FROM d)',
    );
    await mkdir(bad);
    await cp(folder, bad, { recursive: true });
    await connection.run(`COPY d TO '${join(bad, 'documents.parquet')}' (FORMAT parquet,
      KV_METADATA {observatory_schema_version: '${SNAPSHOT_SCHEMA_VERSION}'})`);
  } finally {
    session.close();
  }
  // the manifest and SHA256SUMS follow the doctored file, so only the pointer check can see it
  const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
  const manifest = JSON.parse(readFileSync(join(bad, 'manifest.json'), 'utf8'));
  const entry = manifest.files.find((f: { name: string }) => f.name === 'documents.parquet');
  entry.sha256 = sha256(join(bad, 'documents.parquet'));
  entry.bytes = readFileSync(join(bad, 'documents.parquet')).length;
  writeFileSync(join(bad, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const sums = readFileSync(join(bad, 'SHA256SUMS'), 'utf8')
    .split('\n')
    .map((l) => (l.endsWith('  documents.parquet') ? `${entry.sha256}  documents.parquet` : l))
    .map((l) => (l.endsWith('  manifest.json') ? `${sha256(join(bad, 'manifest.json'))}  manifest.json` : l))
    .join('\n');
  writeFileSync(join(bad, 'SHA256SUMS'), sums);
  await assert.rejects(verifySnapshot(bad), {
    code: 'corrupt',
    message:
      /is not a WARC response record|is the response record of|not one whole gzip member|would end past the end of the file/,
  });
});

/** A copy of the published folder, under a root of its own. */
async function copied(what: string): Promise<string> {
  const copy = join(mkdtempSync(join(tmpdir(), `warc-output-${what}-`)), '2026-01-05');
  await cp(folder, copy, { recursive: true });
  return copy;
}

test('verify --deep finds an index that leaves out a record of the WARC files, blocks and index.idx agreeing', async () => {
  const bad = await copied('index');
  const lines = gunzipSync(readFileSync(join(bad, 'index.cdx.gz')))
    .toString()
    .trimEnd()
    .split('\n');
  await writeZipNum(lines.slice(1), bad);
  const manifest = JSON.parse(readFileSync(join(bad, 'manifest.json'), 'utf8'));
  for (const f of manifest.files) if (f.name === 'index.cdx.gz') f.rows = lines.length - 1;
  writeFileSync(join(bad, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  relist(bad, ['index.cdx.gz', 'index.idx']);
  await verifySnapshot(bad);
  await assert.rejects(verifySnapshot(bad, { deep: true }), {
    code: 'corrupt',
    message: /index\.cdx\.gz leaves out a record of the WARC files/,
  });
});

test('a folder of schema 5 (a plain index.cdxj) verifies, deep too, and reparses into a ZipNum index', async () => {
  const old = await copied('schema-5');
  const lines = await asSchema5(old);

  await verifySnapshot(old, { deep: true });
  const root = mkdtempSync(join(tmpdir(), 'warc-output-reparsed-'));
  await reparseSnapshot({ folder: old, root, clock: clockStartingAt(W0 + 86_400_000) });
  const reparsed = join(root, '2026-01-05');
  const names = (await readManifest(reparsed)).files.map((f) => f.name);
  assert.ok(names.includes('index.cdx.gz') && names.includes('index.idx') && !names.includes('index.cdxj'));
  assert.equal(gunzipSync(readFileSync(join(reparsed, 'index.cdx.gz'))).toString(), lines);
  await verifySnapshot(reparsed, { deep: true });
});
