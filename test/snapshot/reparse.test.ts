/**
 * `observatory reparse`: two weeks of the simulated Web (gzip, deflate and br bodies, redirects,
 * syntax errors, RDFa, conditional re-visits answered 304) rebuilt from their WARC files alone
 * give the same quads.parquet, data.nq.gz, documents.parquet, changes, schedule and delta; a record whose
 * body differs from what the crawl parsed shows that the statements come from the archive.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { clockStartingAt } from '../../pipeline/core/index.ts';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { SCENARIOS, type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import {
  openDuckDb,
  readManifest,
  reparseSnapshot,
  SNAPSHOT_SCHEMA_VERSION,
  verifySnapshot,
} from '../../pipeline/snapshot/index.ts';
import { runCli } from '../commands/cli-process.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { relist } from './relist.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEKS = ['2026-01-05', '2026-01-12'];
let sim: SimWeb;
let source: string;
let out: string;

async function rows(sql: string): Promise<unknown[][]> {
  const session = await openDuckDb();
  try {
    return (await session.connection.runAndReadAll(sql)).getRows();
  } finally {
    session.close();
  }
}

const parquet = (root: string, week: string, table: string) =>
  `read_parquet('${join(root, week, `${table}.parquet`)}')`;

/** Rows of `table` in one root and not the other, both ways, and the two row counts. */
async function difference(table: string, week: string, columns = '*') {
  const [[onlySource, onlyOut, sourceRows, outRows]] = await rows(`SELECT
      (SELECT count(*) FROM (SELECT ${columns} FROM ${parquet(source, week, table)} EXCEPT ALL SELECT ${columns} FROM ${parquet(out, week, table)})),
      (SELECT count(*) FROM (SELECT ${columns} FROM ${parquet(out, week, table)} EXCEPT ALL SELECT ${columns} FROM ${parquet(source, week, table)})),
      (SELECT count(*) FROM ${parquet(source, week, table)}), (SELECT count(*) FROM ${parquet(out, week, table)})`);
  return {
    onlySource: Number(onlySource),
    onlyOut: Number(onlyOut),
    sourceRows: Number(sourceRows),
    outRows: Number(outRows),
  };
}

before(async () => {
  sim = await startSimWeb({ seed: 7, docs: 300, plds: 20, latencyScale: 0, faults: 1, now: W0 });
  source = mkdtempSync(join(tmpdir(), 'reparse-source-'));
  out = mkdtempSync(join(tmpdir(), 'reparse-out-'));
  // the format lab's pages add RDFa and a syntax error in every syntax to the generated Web
  const kernel = [
    ...rdfDocuments(sim, W0),
    ...Object.values(SCENARIOS)
      .filter((s) => s.group === 'format')
      .map((s) => s.url),
  ];
  for (const at of [W0, W0 + WEEK]) {
    const outcome = await simWeekly(sim, source, at, kernel, { adaptiveRounds: 1 });
    assert.equal(outcome.status, 'published');
  }
});

after(() => sim.close());

test('the source weeks hold what reparse must get right', async () => {
  const documents = `(SELECT * FROM ${parquet(source, WEEKS[0], 'documents')} UNION ALL BY NAME
    SELECT * FROM ${parquet(source, WEEKS[1], 'documents')})`;
  const [[encoded, redirected, parseErrors, rdfa, carried]] = await rows(`SELECT
      count(*) FILTER (headers['content-encoding'] IN ('gzip', 'deflate', 'br') AND downloaded_by = url),
      count(*) FILTER (redirects > 0), count(*) FILTER (error = 'parse'), count(*) FILTER (format = 'rdfa'),
      count(*) FILTER (carried_from IS NOT NULL) FROM ${documents}`);
  assert.ok(Number(encoded) > 0, 'content-encoded bodies');
  assert.ok(Number(redirected) > 0, 'redirects');
  assert.ok(Number(parseErrors) > 0, 'syntax errors');
  assert.ok(Number(rdfa) > 0, 'RDFa pages');
  assert.ok(Number(carried) > 0, '304s carrying statements over');
});

test('reparse through the CLI rebuilds both weeks exactly', async () => {
  for (const week of WEEKS) {
    const run = await runCli(['reparse', join(source, week), '--out', out]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`^published ${join(out, week)}: \\d+ documents, \\d+ statements\\n$`),
    );
  }
  for (const week of WEEKS) {
    for (const table of ['quads', 'documents', 'redirects', 'changes', 'schedule', 'delta']) {
      const d = await difference(table, week);
      assert.deepEqual(
        { onlySource: d.onlySource, onlyOut: d.onlyOut },
        { onlySource: 0, onlyOut: 0 },
        `${week} ${table}`,
      );
      assert.equal(d.outRows, d.sourceRows, `${week} ${table}`);
    }
    // the second week's statements changed: its delta compares rows, not two empty tables
    if (week === WEEKS[1]) assert.ok((await difference('delta', week)).outRows > 0, `${week} delta`);
    const nquads = (root: string) => gunzipSync(readFileSync(join(root, week, 'data.nq.gz')));
    assert.ok(nquads(out).equals(nquads(source)), `${week} data.nq.gz`);
    const sourceManifest = await readManifest(join(source, week));
    const manifest = await readManifest(join(out, week));
    assert.deepEqual(manifest.reparsedFrom, {
      snapshot: week,
      manifestSha256: createHash('sha256')
        .update(readFileSync(join(source, week, 'manifest.json')))
        .digest('hex'),
      crawledWith: sourceManifest.softwareVersion,
    });
    assert.deepEqual(manifest.counts, sourceManifest.counts);
    assert.equal(sourceManifest.reparsedFrom, undefined);
    // the WARC files are the source's, linked in
    for (const f of manifest.files.filter((f) => f.name.endsWith('.warc.gz'))) {
      assert.equal(statSync(join(out, week, f.name)).ino, statSync(join(source, week, f.name)).ino);
    }
    await verifySnapshot(join(out, week));
  }
  // the same source read again by the same parsers is the same input: nothing to do
  const again = await runCli(['reparse', join(source, WEEKS[0]), '--out', out]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /^snapshot 2026-01-05 is already reparsed in .*; nothing to do\n$/);
  const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8'));
  assert.deepEqual(
    index.snapshots.map((s: { name: string }) => s.name),
    WEEKS,
  );
});

test('bad input exits 2 with one line', async () => {
  const ownRoot = await runCli(['reparse', join(source, WEEKS[0]), '--out', source]);
  assert.equal(ownRoot.status, 2);
  assert.match(ownRoot.stderr, /is the snapshots root of .*; reparse publishes into another root/);
  assert.equal(ownRoot.stderr.trim().split('\n').length, 1);
  const inside = await runCli(['reparse', join(source, WEEKS[0]), '--out', join(source, WEEKS[0], 'again')]);
  assert.equal(inside.status, 2);
  assert.match(inside.stderr, /is inside .*; reparse publishes into another root/);
  const missing = await runCli(['reparse', join(source, 'no-such-week'), '--out', out]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /not a published snapshot folder/);
  const bare = mkdtempSync(join(tmpdir(), 'reparse-bare-'));
  await cp(join(source, WEEKS[0]), join(bare, WEEKS[0]), {
    recursive: true,
    filter: (path) => !path.endsWith('.warc.gz'),
  });
  const noArchive = await runCli([
    'reparse',
    join(bare, WEEKS[0]),
    '--out',
    mkdtempSync(join(tmpdir(), 'r-')),
  ]);
  assert.equal(noArchive.status, 2);
  assert.match(noArchive.stderr, /has no WARC archive/);
});

/**
 * A copy of week 1 whose one document's pointer names a new record (appended to its WARC file)
 * with another body: what a newer parser reading the same bytes differently looks like. The row's
 * content_sha256 and the folder's checksums follow the new record, so that the folder is sound:
 * reparse refuses a record that is not the body its row says the crawl read (tampered-archive.test.ts).
 */
test('the statements come from the WARC records, not from the published quads', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'reparse-tampered-'));
  const folder = join(copy, WEEKS[0]);
  await cp(join(source, WEEKS[0]), folder, { recursive: true });
  const [[url, finalUrl, filename, before]] = (await rows(`SELECT url, final_url, warc_filename, statements
      FROM ${parquet(source, WEEKS[0], 'documents')} WHERE downloaded_by = url AND statements > 1 AND format = 'turtle'
      ORDER BY url LIMIT 1`)) as [string, string, string, bigint][];
  const body = Buffer.from(`<${finalUrl}> <http://example.org/p> "read again" .\n`);
  const record = WARCRecord.create(
    {
      url: finalUrl,
      type: 'response',
      warcVersion: 'WARC/1.1',
      statusline: 'HTTP/1.1 200 OK',
      httpHeaders: { 'Content-Type': 'application/n-triples' },
    },
    [body],
  );
  const member = gzipSync(await WARCSerializer.serialize(record, { gzip: false }));
  const warc = join(folder, filename);
  const offset = statSync(warc).size;
  appendFileSync(warc, member);
  const session = await openDuckDb();
  try {
    await session.connection.run(
      `CREATE TABLE d AS SELECT * FROM read_parquet('${join(folder, 'documents.parquet')}')`,
    );
    await session.connection.run(
      `UPDATE d SET warc_offset = ${offset}, warc_length = ${member.length},
        content_sha256 = '${createHash('sha256').update(body).digest('hex')}' WHERE url = '${url}'`,
    );
    await session.connection.run(`COPY d TO '${join(folder, 'documents.parquet')}' (FORMAT parquet,
      KV_METADATA {observatory_schema_version: '${SNAPSHOT_SCHEMA_VERSION}'})`);
  } finally {
    session.close();
  }
  relist(folder, ['documents.parquet', filename]);
  const corrected = mkdtempSync(join(tmpdir(), 'reparse-corrected-'));
  const published = await reparseSnapshot({ folder, root: corrected, clock: clockStartingAt(W0 + 2 * WEEK) });
  const quads = await rows(`SELECT subject, predicate, object FROM ${parquet(corrected, WEEKS[0], 'quads')}
    WHERE graph = '${finalUrl}'`);
  assert.deepEqual(quads, [[finalUrl, 'http://example.org/p', 'read again']]);
  const [[format, statements, sha]] = await rows(`SELECT format, statements, content_sha256
    FROM ${parquet(corrected, WEEKS[0], 'documents')} WHERE url = '${url}'`);
  assert.deepEqual([format, statements], ['ntriples', 1n]);
  assert.equal(sha, createHash('sha256').update(body).digest('hex'));
  assert.equal(
    published.manifest.counts.statements,
    0 - Number(before) + 1 + (await readManifest(join(source, WEEKS[0]))).counts.statements,
  );
  // every other graph is as the crawl published it
  const [[others]] = await rows(`SELECT count(*) FROM (SELECT * FROM ${parquet(corrected, WEEKS[0], 'quads')}
      WHERE graph <> '${finalUrl}' EXCEPT ALL SELECT * FROM ${parquet(source, WEEKS[0], 'quads')})`);
  assert.equal(others, 0n);
  await rm(copy, { recursive: true });
});
