/**
 * A snapshot's archive as WACZ 1.1.1 (docs/archive.md, "Replay"): two weekly snapshots of the
 * simulated Web, the second archiving unchanged bodies as revisits of the first; its package holds
 * its own WARC files and index, the records its revisits refer to (and nothing else of the first
 * week), pages.jsonl, and a datapackage.json whose hashes and sizes are those of the entries.
 */
import assert from 'node:assert/strict';
import { cpSync, createWriteStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { IDENTICAL_PAYLOAD_DIGEST } from '../../pipeline/archive/index.ts';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { readManifest, type WaczSummary, writeWacz } from '../../pipeline/snapshot/index.ts';
import { httpPayload, pointedRecord, sha256, splitRecord } from '../archive/warc-reader.ts';
import { runCli } from '../commands/cli-process.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { type ZipEntry, zipEntries } from './zip-entries.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK1 = '2026-01-05';
const WEEK2 = '2026-01-12';
let sim: SimWeb;
let root: string;
let summary: WaczSummary;
let zip: Buffer;
let entries: Map<string, ZipEntry>;

async function packaged(folder: string): Promise<{ summary: WaczSummary; zip: Buffer }> {
  const file = join(mkdtempSync(join(tmpdir(), 'wacz-out-')), 'snapshot.wacz');
  const out = createWriteStream(file);
  const written = await writeWacz(folder, out);
  return { summary: written, zip: readFileSync(file) };
}

before(async () => {
  sim = await startSimWeb({ seed: 33, docs: 160, plds: 12, latencyScale: 0, faults: 0, now: W0 });
  root = mkdtempSync(join(tmpdir(), 'wacz-'));
  const kernel = rdfDocuments(sim, W0);
  for (const at of [W0, W0 + WEEK]) {
    assert.equal((await simWeekly(sim, root, at, kernel, { adaptiveRounds: 0 })).status, 'published');
  }
  const made = await packaged(join(root, WEEK2));
  summary = made.summary;
  zip = made.zip;
  entries = new Map(zipEntries(made.zip).map((e) => [e.name, e]));
});

after(() => sim.close());

const entry = (name: string) => {
  const found = entries.get(name);
  assert.ok(found, `${name} is in the package (${[...entries.keys()].join(', ')})`);
  return found;
};

test('every entry is stored, and datapackage.json names each with its SHA-256 and size', () => {
  for (const e of entries.values()) assert.equal(e.method, 0, `${e.name} is stored, not compressed`);
  const datapackage = JSON.parse(entry('datapackage.json').data.toString('utf8'));
  assert.equal(datapackage.profile, 'data-package');
  assert.equal(datapackage.wacz_version, '1.1.1');
  assert.match(datapackage.software, /^LinkedDataObservatory\//);
  assert.ok(!Number.isNaN(Date.parse(datapackage.created)));
  const listed = datapackage.resources.map((r: { path: string }) => r.path).sort();
  const others = [...entries.keys()].filter((n) => !n.startsWith('datapackage')).sort();
  assert.deepEqual(listed, others);
  for (const r of datapackage.resources) {
    const data = entry(r.path).data;
    assert.equal(r.hash, sha256(data), r.path);
    assert.equal(r.bytes, data.length, r.path);
    assert.equal(r.name, r.path.split('/').pop());
  }
  const digest = JSON.parse(entry('datapackage-digest.json').data.toString('utf8'));
  assert.deepEqual(digest, { path: 'datapackage.json', hash: sha256(entry('datapackage.json').data) });
});

test("the snapshot's own WARC files and index, the referred records, and nothing else of the first week", async () => {
  const manifest = await readManifest(join(root, WEEK2));
  assert.deepEqual(manifest.dependsOn, [WEEK1]);
  const own = manifest.files.map((f) => f.name).filter((n) => n.endsWith('.warc.gz'));
  const referred = `archive/${WEEK2}-referred.warc.gz`;
  const warcs = [...entries.keys()].filter((n) => n.startsWith('archive/')).sort();
  assert.deepEqual(warcs, [...own.map((n) => `archive/${n}`), referred].sort());
  for (const name of own)
    assert.ok(entry(`archive/${name}`).data.equals(readFileSync(join(root, WEEK2, name))));
  for (const index of ['index.cdx.gz', 'index.idx'])
    assert.ok(entry(`indexes/${index}`).data.equals(readFileSync(join(root, WEEK2, index))), index);
  // every WARC file reads with warcio, record by record; the referred one holds responses only
  for (const name of warcs) {
    const types: string[] = [];
    for await (const record of new WARCParser([entry(name).data])) {
      types.push(record.warcType ?? '');
      await record.readFully();
    }
    assert.ok(types.length > 0, name);
    if (name === referred) {
      assert.equal(types.length, summary.referredRecords);
      assert.ok(types.every((t) => t === 'response'));
    }
  }
  const firstWeek = readFileSync(join(root, WEEK1, `${WEEK1}-00000.warc.gz`)).length;
  assert.ok(entry(referred).size < firstWeek, 'the referred records, not the first week whole');
});

test('every identical-payload revisit finds its record in the package by URL and date, with its payload', async () => {
  const index = entry('indexes/referred.cdxj').data.toString('utf8').trimEnd().split('\n');
  const lines = [...index].sort();
  assert.deepEqual(index, lines, 'the referred index is sorted');
  const byUrl = new Map(
    index.map((line) => {
      const fields = JSON.parse(line.slice(line.indexOf(' {') + 1));
      return [`${fields.url} ${line.split(' ')[1]}`, fields];
    }),
  );
  let revisits = 0;
  // a 304's revisit refers to the previous record too: its body is packaged as well
  let referring = 0;
  for (const name of summary.warcFiles) {
    const all = gunzipSync(entry(`archive/${name}`).data);
    for (const record of all.toString('latin1').split('WARC/1.1\r\n').slice(1)) {
      if (record.includes('\r\nWARC-Refers-To-Filename: ')) referring++;
      if (!record.includes(`WARC-Profile: ${IDENTICAL_PAYLOAD_DIGEST}`)) continue;
      revisits++;
      const field = (f: string) => new RegExp(`\r\n${f}: ([^\r]*)`).exec(`\r\n${record}`)?.[1] ?? '';
      const ts = field('WARC-Refers-To-Date').replace(/\D/g, '').slice(0, 14);
      const line = byUrl.get(`${field('WARC-Refers-To-Target-URI')} ${ts}`);
      assert.ok(line, `the record ${field('WARC-Refers-To-Target-URI')} at ${ts} is indexed`);
      const referred = entry(`archive/${line.filename}`).data;
      const bytes = gunzipSync(
        referred.subarray(Number(line.offset), Number(line.offset) + Number(line.length)),
      );
      const original = pointedRecord(join(root, WEEK1), {
        filename: field('WARC-Refers-To-Filename'),
        offset: Number(field('WARC-Refers-To-Offset')),
        length: Number(field('WARC-Refers-To-Length')),
      }).record;
      assert.ok(bytes.equals(original), 'the record is copied byte for byte');
      assert.equal(sha256(httpPayload(splitRecord(bytes).block)), field('WARC-Payload-Digest'));
    }
  }
  assert.ok(revisits > 20, `${revisits} revisits`);
  assert.ok(summary.referredRecords >= revisits && summary.referredRecords <= referring);
});

test('pages.jsonl: its header, then one page per archived URL with an ISO 8601 time', () => {
  const [header, ...pages] = entry('pages/pages.jsonl').data.toString('utf8').trimEnd().split('\n');
  assert.deepEqual(Object.keys(JSON.parse(header)).sort(), ['format', 'id', 'title']);
  assert.equal(JSON.parse(header).format, 'json-pages-1.0');
  assert.equal(JSON.parse(header).id, 'pages');
  assert.equal(pages.length, summary.pages);
  assert.ok(pages.length > 50);
  const cdxj = gunzipSync(entry('indexes/index.cdx.gz').data).toString('utf8');
  for (const line of pages) {
    const page = JSON.parse(line);
    assert.match(page.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(cdxj.includes(`"url":${JSON.stringify(page.url)}`), `${page.url} is in the index`);
  }
});

test('a WARC file that is not the one its manifest lists fails the package, naming it', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'wacz-tampered-'));
  for (const week of [WEEK1, WEEK2]) cpSync(join(root, week), join(copy, week), { recursive: true });
  const file = join(copy, WEEK2, summary.warcFiles[0]);
  const bytes = readFileSync(file);
  writeFileSync(file, Buffer.concat([bytes, gzipEmpty()]));
  await assert.rejects(packaged(join(copy, WEEK2)), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'corrupt');
    assert.ok(error.message.includes(summary.warcFiles[0]), error.message);
    return true;
  });
});

test('an earlier WARC file cut short fails the package, naming it, instead of packaging what is not there', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'wacz-cut-'));
  for (const week of [WEEK1, WEEK2]) cpSync(join(root, week), join(copy, week), { recursive: true });
  const earlier = `${WEEK1}-00000.warc.gz`;
  const bytes = readFileSync(join(copy, WEEK1, earlier));
  writeFileSync(join(copy, WEEK1, earlier), bytes.subarray(0, bytes.length >> 1));
  await assert.rejects(packaged(join(copy, WEEK2)), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'corrupt');
    assert.ok(error.message.includes(earlier), error.message);
    return true;
  });
});

test('observatory wacz writes the same bytes, and a folder without an archive is refused', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'wacz-cli-')), 'week.wacz');
  const run = await runCli(['wacz', join(root, WEEK2), '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  assert.ok(readFileSync(out).equals(zip), 'one folder, one package: the same bytes every time');
  const empty = mkdtempSync(join(tmpdir(), 'wacz-none-'));
  const refused = await runCli(['wacz', empty, '--out', join(empty, 'x.wacz')]);
  assert.notEqual(refused.status, 0);
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
});

test('a careless --out destroys nothing: no file but a WACZ is replaced, nothing is added to a snapshot folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wacz-careless-'));
  const notes = join(dir, 'notes.txt');
  writeFileSync(notes, 'my notes\n');
  const warc = join(root, WEEK2, summary.warcFiles[0]);
  const before = readFileSync(warc);
  for (const out of [notes, warc, join(root, WEEK1, 'week.wacz')]) {
    const run = await runCli(['wacz', join(root, WEEK2), '--out', out]);
    assert.equal(run.status, 2, `${out}: ${run.stderr}`);
    assert.match(run.stderr, /invalid_input/);
  }
  assert.equal(readFileSync(notes, 'utf8'), 'my notes\n');
  assert.ok(readFileSync(warc).equals(before), 'the WARC file is as it was');
  assert.ok(!existsSync(join(root, WEEK1, 'week.wacz')));
  // a package written before is replaced
  const again = join(dir, 'week.wacz');
  for (let i = 0; i < 2; i++)
    assert.equal((await runCli(['wacz', join(root, WEEK2), '--out', again])).status, 0);
  assert.ok(readFileSync(again).equals(zip));
});

test('a first snapshot refers to nothing: its package holds its own archive only', async () => {
  const first = await packaged(join(root, WEEK1));
  assert.equal(first.summary.referredRecords, 0);
  const names = zipEntries(first.zip).map((e) => e.name);
  assert.ok(!names.some((n) => n.includes('referred')), names.join(', '));
  assert.ok(names.includes(`archive/${WEEK1}-00000.warc.gz`) && names.includes('datapackage.json'));
});

/** A whole gzip member of nothing: appended, the file stays whole members but is not the one listed. */
function gzipEmpty(): Buffer {
  return Buffer.from('1f8b08000000000000030300000000000000000000', 'hex');
}
