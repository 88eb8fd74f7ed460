/**
 * `reparse` and `verify` trust nothing they read of a published folder before checking it: an
 * adversary's edits to its WARC files, pointers, manifest config and neighbours, and files that are
 * no files (a FIFO, a device), each end in one coded line (`corrupt`, exit 1), never exit 0 with
 * wrong statements, a crash or a hang (issue #31, item 5). Two weeks of the simulated Web (the
 * second with 304s carrying the first's statements) are the untampered folders; every test damages
 * its own copy.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { readManifest, TABLES_DIR } from '../../pipeline/snapshot/index.ts';
import { CLI } from '../commands/cli-process.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { relist } from '../snapshot/relist.ts';
import {
  bombMember,
  documentRows,
  editConfig,
  forgeRecord,
  plainDocument,
  updateDocuments,
} from './forge-archive.ts';

const W0 = Date.UTC(2026, 0, 5);
const [WEEK1, WEEK2] = ['2026-01-05', '2026-01-12'];
let work: string;
let pristine: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'tampered-archive-'));
  pristine = join(work, 'pristine');
  const sim = await startSimWeb({ seed: 7, docs: 40, plds: 10, latencyScale: 0, faults: 0, now: W0 });
  try {
    const kernel = rdfDocuments(sim, W0);
    for (const at of [W0, W0 + WEEK]) {
      assert.equal((await simWeekly(sim, pristine, at, kernel, { adaptiveRounds: 0 })).status, 'published');
    }
  } finally {
    sim.close();
  }
});
after(() => rmSync(work, { recursive: true, force: true }));

let copies = 0;
/** A copy of the pristine weeks (`weeks`) in a root of its own; returns the root. */
async function copy(weeks = [WEEK1, WEEK2]): Promise<string> {
  const root = join(work, `copy-${++copies}`);
  for (const week of weeks) await cp(join(pristine, week), join(root, week), { recursive: true });
  return root;
}

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  /** The last line of stderr: the failure's, after any progress lines. */
  readonly failure: string;
}

/** `observatory ARGS`, killed after 60 s: a reader that hangs fails the test instead of stopping it. */
function cli(...args: string[]): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { status: r.status, stdout: r.stdout, failure: r.stderr.trim().split('\n').at(-1) ?? '' };
}

/** Reparse of `folder` into a fresh root: the run, and what the root holds afterwards. */
function reparse(folder: string, out = join(work, `out-${++copies}`)): Run & { published: string[] } {
  const run = cli('reparse', folder, '--out', out);
  const published = existsSync(out)
    ? readdirSync(out).filter((n) => !n.startsWith('.') && n !== 'index.json')
    : [];
  return { ...run, published };
}

/** Asserts a run failed with one coded `corrupt` line matching `problem`, and published nothing. */
function assertCorrupt(run: Run & { published?: string[] }, problem: RegExp): void {
  assert.equal(run.status, 1, `exit 1, not ${run.status}: ${run.failure}`);
  assert.match(run.failure, /^observatory: .*\[corrupt\]$/);
  assert.match(run.failure, problem);
  if (run.published) assert.deepEqual(run.published, [], 'nothing published');
}

/** What verify says of a file that is not what the manifest and SHA256SUMS say. */
const STALE = /does not match its SHA-256 checksum|has \d+ bytes, the manifest says/;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const flipLiteral = (payload: Buffer) => {
  const text = payload.toString('latin1');
  const at = text.indexOf('"') + 1;
  return Buffer.from(`${text.slice(0, at)}X${text.slice(at + 1)}`, 'latin1');
};

test('the untampered weeks verify, deeply too, and reparse', () => {
  for (const week of [WEEK1, WEEK2]) {
    const deep = cli('verify', '--deep', join(pristine, week));
    assert.equal(deep.status, 0, deep.failure);
    assert.match(deep.stdout, new RegExp(`^ok ${week}: .*, every WARC record and body\\n$`));
  }
  const run = reparse(join(pristine, WEEK1));
  assert.equal(run.status, 0, run.failure);
});

test('a record whose payload was changed, its digests kept or recomputed, SHA256SUMS not: reparse refuses the folder', async () => {
  for (const digests of ['kept', 'recomputed'] as const) {
    const folder = join(await copy([WEEK1]), WEEK1);
    await forgeRecord(folder, await plainDocument(folder), {
      payload: flipLiteral,
      digests,
      thorough: false,
    });
    assertCorrupt(reparse(folder), STALE);
  }
});

test('a forger who recomputes SHA256SUMS and the manifest: digests kept fail the record, digests recomputed the body', async () => {
  for (const [digests, problem] of [
    ['kept', /the record is damaged: it does not match its WARC-Block-Digest/],
    ['recomputed', /is not the body the crawl read \(its SHA-256 is not the row's content_sha256\)/],
  ] as const) {
    const folder = join(await copy([WEEK1]), WEEK1);
    const doc = await plainDocument(folder);
    await forgeRecord(folder, doc, { payload: flipLiteral, digests, thorough: true });
    // plain verify checks files and pointers, not every record's bytes: it stays as fast as it was
    assert.equal(cli('verify', folder).status, 0);
    const deep = cli('verify', '--deep', folder);
    assertCorrupt(deep, digests === 'kept' ? /WARC-Block-Digest/ : /content_sha256/);
    assert.match(deep.failure, new RegExp(escaped(digests === 'kept' ? doc.finalUrl : doc.url)));
    const run = reparse(folder);
    assertCorrupt(run, problem);
    assert.match(run.failure, new RegExp(escaped(doc.url)));
  }
});

test("a record's Content-Length cut by 10: refused by reparse and verify --deep, SHA256SUMS recomputed or not", async () => {
  for (const thorough of [false, true]) {
    const folder = join(await copy([WEEK1]), WEEK1);
    await forgeRecord(folder, await plainDocument(folder), { digests: 'kept', contentLength: -10, thorough });
    const problem = thorough ? /WARC-Block-Digest/ : STALE;
    assertCorrupt(reparse(folder), problem);
    assertCorrupt(cli('verify', '--deep', folder), problem);
  }
});

test("a manifest config edited (maxBytes 1, parseBudgetMs 'soon', maxBytes -1): corrupt, SHA256SUMS recomputed or not", async () => {
  for (const [edit, thorough, problem] of [
    [{ maxBytes: 1 }, false, /manifest\.json does not match its SHA-256 checksum/],
    [{ parseBudgetMs: 'soon' }, false, /manifest\.json does not match its SHA-256 checksum/],
    // a crawl cannot have run with these: the config is validated as the command line's is
    [
      { parseBudgetMs: 'soon' },
      true,
      /the manifest's config is not one a crawl runs with: parseBudgetMs: expected/,
    ],
    [{ maxBytes: -1 }, true, /the manifest's config is not one a crawl runs with: maxBytes: expected/],
    // a valid config the crawl did not run with: the bodies it read no longer decode within it
    [{ maxBytes: 1 }, true, /does not decode as the crawl decoded it: body larger than 1 bytes/],
  ] as const) {
    const folder = join(await copy([WEEK1]), WEEK1);
    editConfig(folder, edit, thorough);
    assertCorrupt(reparse(folder), problem);
    if (thorough && 'parseBudgetMs' in edit) assertCorrupt(cli('verify', folder), problem);
  }
});

test('extra .warc.gz files and index notes in the folder are not linked or read: only what the manifest lists', async () => {
  const root = await copy([WEEK1]);
  const folder = join(root, WEEK1);
  const [listed] = (await readManifest(folder)).files.filter((f) => f.name.endsWith('.warc.gz'));
  await cp(join(folder, listed.name), join(folder, `${WEEK1}-99999.warc.gz`));
  // notes that cover the file exactly with a line of the forger's: a crawl's run folder would use them
  const size = statSync(join(folder, listed.name)).size;
  writeFileSync(
    join(folder, `${listed.name}.cdxj-notes`),
    `0 ${size} org,forged)/ 20260105000000 {"url":"http://forged.org/"}\n`,
  );
  const run = reparse(folder);
  assert.equal(run.status, 0, run.failure);
  const out = join(work, `out-${copies}`, WEEK1);
  const names = (await readManifest(out)).files.map((f) => f.name).filter((n) => n.endsWith('.warc.gz'));
  assert.deepEqual(names, [listed.name]);
  assert.ok(!existsSync(join(out, `${WEEK1}-99999.warc.gz`)));
  for (const index of ['index.cdx.gz', 'index.idx'])
    assert.deepEqual(readFileSync(join(out, index)), readFileSync(join(folder, index)), index);
});

test('pointers out of bounds (length 3e9, 1e12, 0; offset -5, past the end) are corrupt naming the row, not a crash', async () => {
  const cases = [
    ['warc_length = 3000000000', /length 3000000000 is not the length of a record/],
    ['warc_length = 1000000000000', /length 1000000000000 is not the length of a record/],
    ['warc_length = 0', /length 0 is not the length of a record/],
    ['warc_offset = -5', /offset -5 is not a byte of a file/],
    ['warc_offset = warc_offset + 100000000', /the record would end past the end of the file/],
  ] as const;
  for (const [set, problem] of cases) {
    const folder = join(await copy([WEEK1]), WEEK1);
    const doc = await plainDocument(folder);
    await updateDocuments(folder, `UPDATE d SET ${set} WHERE url = '${doc.url}'`);
    relist(folder, ['documents.parquet']);
    const verify = cli('verify', folder);
    assertCorrupt(verify, problem);
    assert.match(verify.failure, new RegExp(`: ${escaped(doc.url)}: `));
    if (set === 'warc_length = 3000000000') assertCorrupt(reparse(folder), problem);
  }
});

test('a gzip member that inflates to 256 MiB is stopped at the record limit, pointed at or not', async () => {
  const pointed = join(await copy([WEEK1]), WEEK1);
  const doc = await plainDocument(pointed);
  // a response of the row's own final URL, so that only its size is wrong
  const bomb = await bombMember(doc.finalUrl, 256);
  assert.ok(bomb.length < 2 * 1024 * 1024, `${bomb.length} bytes`);
  // pointed at by a row: every reader of the pointer stops
  const offset = statSync(join(pointed, doc.file)).size;
  appendFileSync(join(pointed, doc.file), bomb);
  await updateDocuments(
    pointed,
    `UPDATE d SET warc_offset = ${offset}, warc_length = ${bomb.length} WHERE url = '${doc.url}'`,
  );
  relist(pointed, ['documents.parquet', doc.file]);
  assertCorrupt(cli('verify', pointed), /the record inflates to more than \d+ bytes/);
  assertCorrupt(reparse(pointed), /the record inflates to more than \d+ bytes/);
  // in the file, pointed at by nothing: verify --deep and the reparse's index stop there
  const stray = join(await copy([WEEK1]), WEEK1);
  appendFileSync(join(stray, doc.file), bomb);
  relist(stray, [doc.file]);
  assert.equal(cli('verify', stray).status, 0);
  assertCorrupt(
    cli('verify', '--deep', stray),
    new RegExp(`the record at ${offset} inflates to more than \\d+ bytes`),
  );
  assertCorrupt(reparse(stray), new RegExp(`the record at ${offset} inflates to more than \\d+ bytes`));
});

test("304 rows whose predecessor is absent, or damaged, are corrupt naming it, not DuckDB's 'No files found'", async () => {
  const [[carried]] = await documentRows(
    join(pristine, WEEK2),
    'SELECT count(*) FROM documents WHERE carried_from IS NOT NULL',
  );
  assert.ok(Number(carried) > 0, '304s carried statements over');
  const alone = await copy([WEEK2]);
  // the archive's revisits depend on that snapshot too: the folder's dependsOn names it first
  assertCorrupt(
    reparse(join(alone, WEEK2)),
    new RegExp(
      `it depends on snapshot ${WEEK1} \\(its revisit records refer to records archived there\\), which is not in`,
    ),
  );
  const both = await copy();
  const quads = join(both, WEEK1, 'quads.parquet');
  const bytes = readFileSync(quads);
  bytes[bytes.length >> 1] ^= 1;
  writeFileSync(quads, bytes);
  // the revisits of WEEK2 refer into WEEK1: reparse wants it in its output first (reparsed whole)
  const out = join(work, `out-${++copies}`);
  assert.equal(reparse(join(pristine, WEEK1), out).status, 0);
  const run = reparse(join(both, WEEK2), out);
  assertCorrupt(
    { ...run, published: run.published.filter((name) => name !== WEEK1 && name !== TABLES_DIR) },
    new RegExp(`${WEEK1}: quads\\.parquet does not match its SHA-256 checksum`),
  );
});

test('a FIFO, or a symbolic link to /dev/zero, in place of a WARC file or the manifest is corrupt, never read', async () => {
  const fifo = (path: string) => {
    rmSync(path);
    assert.equal(spawnSync('mkfifo', [path]).status, 0);
  };
  const root = await copy([WEEK1]);
  const folder = join(root, WEEK1);
  const [warc] = (await readManifest(folder)).files.filter((f) => f.name.endsWith('.warc.gz'));
  fifo(join(folder, warc.name));
  assertCorrupt(reparse(folder), /is a named pipe \(FIFO\), not a regular file/);
  assertCorrupt(cli('verify', folder), /is a named pipe \(FIFO\), not a regular file/);
  rmSync(join(folder, warc.name));
  symlinkSync('/dev/zero', join(folder, warc.name));
  assertCorrupt(cli('verify', folder), /is a character device, not a regular file/);
  assertCorrupt(reparse(folder), /is a character device, not a regular file/);
  const manifest = join(await copy([WEEK1]), WEEK1);
  fifo(join(manifest, 'manifest.json'));
  assertCorrupt(cli('verify', manifest), /manifest\.json is a named pipe \(FIFO\)/);
});
