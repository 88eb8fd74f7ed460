import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { CrawledDocument, Logger, Statement } from '../../pipeline/core/index.ts';
import { manualClock } from '../../pipeline/core/index.ts';
import { JOURNAL_FILE, openJournal, readJournalDocuments } from '../../pipeline/crawl/index.ts';
import {
  openDuckDb,
  type PublishOptions,
  publishSnapshot,
  queryRows,
  snapshotName,
  verifySnapshot,
} from '../../pipeline/snapshot/index.ts';
import { stageCrawl } from '../../pipeline/snapshot/staging.ts';
import { readRows } from './read-rows.ts';
import { publishWeek, source, WEEK1, week1 } from './sample-crawl.ts';

/**
 * The publisher reads a crawl's journal in place with DuckDB; other documents are written as a
 * journal first. These tests hold both to the same output, and a damaged journal to what the JS
 * reader always did: damaged lines skipped and reported with their URL, the rest published.
 */
const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `journal-publish-${label}-`));
  dirs.push(dir);
  return dir;
}

/** A crawl journal of `docs`, as the crawler writes it. */
async function journalOf(docs: readonly CrawledDocument[]): Promise<string> {
  const dir = await tempDir('crawl');
  const journal = openJournal(dir);
  journal.append({ t: 'round', round: 0, urls: docs.map((d) => [d.record.url, 0] as const) });
  for (const doc of docs) journal.append({ t: 'doc', depth: 0, ...doc });
  journal.append({ t: 'end' });
  journal.close();
  return dir;
}

/** The published rows of quads, documents and redirects, and data.nq.gz decompressed. */
async function contents(folder: string): Promise<unknown[]> {
  const out: unknown[] = [gunzipSync(await readFile(join(folder, 'data.nq.gz'))).toString('utf8')];
  for (const table of ['quads', 'documents', 'redirects']) {
    out.push(await readRows(`SELECT * FROM read_parquet('${join(folder, `${table}.parquet`)}')`));
  }
  return out;
}

function warnings(): { logger: Logger; seen: unknown[] } {
  const seen: unknown[] = [];
  const logger = { warn: (fields: unknown) => seen.push(fields), info: () => {} } as unknown as Logger;
  return { logger, seen };
}

/** Publishes week 1 from `documents`, returning the messages logged. */
async function publishLogged(
  documents: PublishOptions['documents'],
): Promise<{ folder: string; messages: string[] }> {
  const messages: string[] = [];
  const log = { info: (_: unknown, msg: string) => messages.push(msg), warn: () => {} } as unknown as Logger;
  const root = await tempDir('logged');
  const { folder } = await publishSnapshot({
    root,
    name: snapshotName('weekly', WEEK1),
    kind: 'weekly',
    startedAt: WEEK1,
    endedAt: WEEK1 + 1,
    config: {},
    documents,
    clock: manualClock(WEEK1 + 2),
    log,
  });
  return { folder, messages };
}

test('a crawl journal read in place publishes what the same documents publish through JS', async () => {
  const dir = await journalOf(week1());
  const fromJournal = await publishLogged(() => readJournalDocuments(dir));
  const fromDocuments = await publishLogged(source(week1()));
  const fallback = 'DuckDB cannot read every journal line: reading it line by line';
  for (const { messages } of [fromJournal, fromDocuments]) {
    assert.ok(!messages.includes(fallback), 'DuckDB read the journal itself');
  }
  assert.deepEqual(await contents(fromJournal.folder), await contents(fromDocuments.folder));
});

test('damaged lines, raw U+2028 (older journals) and a torn end: the readable documents publish, the damage is reported', async () => {
  const docs = week1();
  const dir = await journalOf(docs);
  const file = join(dir, JOURNAL_FILE);
  const lines = readFileSync(file, 'utf8').split('\n');
  const damaged = lines.findIndex((l) => l.includes(`"url":"${docs[0].record.url}"`));
  lines[damaged] = lines[damaged].slice(0, lines[damaged].length / 2);
  // valid JSON, but not the shape of a document line: its statements are not arrays
  const misshapen = lines.findIndex((l) => l.includes(`"url":"${docs[2].record.url}"`));
  lines[misshapen] = lines[misshapen].replace(/"statements":\[.*\]\}$/, '"statements":[1,2]}');
  // the code before U+2028 was escaped wrote it raw inside JSON strings
  const other = docs[1];
  const separated = { ...other, statements: [{ ...other.statements[0], object: 'a\u2028b' }] };
  const rawLine = JSON.stringify({
    t: 'doc',
    depth: 0,
    ...separated,
    statements: separated.statements.map((s) => [s.subject, s.predicate, s.object, 'l', s.datatype, s.lang]),
  });
  const index = lines.findIndex((l) => l.includes(`"url":"${other.record.url}"`));
  lines[index] = rawLine;
  writeFileSync(file, lines.join('\n'));
  appendFileSync(file, '{"t":"doc","depth":0,"rec');
  const { logger, seen } = warnings();
  const root = await tempDir('damaged');
  const published = await publishWeek(root, WEEK1, () => readJournalDocuments(dir, { logger }));
  await verifySnapshot(published.folder);
  const urls = (
    await readRows(`SELECT url FROM read_parquet('${join(published.folder, 'documents.parquet')}')`)
  ).map((r) => r[0]);
  assert.ok(
    !urls.includes(docs[0].record.url) && !urls.includes(docs[2].record.url),
    'damaged lines left out',
  );
  assert.equal(urls.length, docs.length - 2);
  const literal =
    await readRows(`SELECT object FROM read_parquet('${join(published.folder, 'quads.parquet')}')
    WHERE graph = '${other.record.finalUrl}' AND object LIKE 'a%b'`);
  assert.deepEqual(literal, [['a\u2028b']]);
  assert.equal(seen.length, 1);
  for (const doc of [docs[0], docs[2]]) assert.ok(JSON.stringify(seen[0]).includes(doc.record.url));
  // the same damaged journal again: the same input, so a no-op
  const again = await publishWeek(root, WEEK1, () => readJournalDocuments(dir, { logger }));
  assert.equal(again.alreadyPublished, true);
});

test('a line DuckDB reads whole but without statements, or with misshapen ones, is damage: the rest publishes', async () => {
  const docs = week1();
  const damage: ReadonlyArray<[CrawledDocument, (line: string) => string]> = [
    [docs[0], (line) => line.replace(/,"statements":\[.*\]\}$/, '}')],
    [docs[2], (line) => line.replace(/"statements":\[.*\]\}$/, '"statements":[1,2]}')],
  ];
  for (const [doc, damaged] of damage) {
    const dir = await journalOf(docs);
    const file = join(dir, JOURNAL_FILE);
    // the line still starts and ends like the crawler's, so DuckDB reads the journal first
    const lines = readFileSync(file, 'utf8').split('\n');
    const index = lines.findIndex((l) => l.includes(`"url":"${doc.record.url}"`));
    lines[index] = damaged(lines[index]);
    writeFileSync(file, lines.join('\n'));
    const { logger, seen } = warnings();
    const { folder, messages } = await publishLogged(() => readJournalDocuments(dir, { logger }));
    assert.ok(messages.includes('DuckDB cannot read every journal line: reading it line by line'));
    const urls = (await readRows(`SELECT url FROM read_parquet('${join(folder, 'documents.parquet')}')`)).map(
      (r) => r[0],
    );
    assert.equal(urls.length, docs.length - 1);
    assert.ok(!urls.includes(doc.record.url) && JSON.stringify(seen).includes(doc.record.url));
  }
});

test('the fingerprint covers every document, in any order', async () => {
  const docs = week1();
  const root = await tempDir('fingerprint');
  const first = await publishWeek(root, WEEK1, source(docs));
  const reordered = await publishWeek(root, WEEK1, source([...docs].reverse()));
  assert.equal(reordered.alreadyPublished, true);
  const changed = docs.map((d, i) => (i === 0 ? { ...d, record: { ...d.record, etag: '"other"' } } : d));
  await assert.rejects(publishWeek(root, WEEK1, source(changed)), /from a different crawl/);
  assert.equal(first.alreadyPublished, false);
});

test('a crawl that breaks the one-download rule is refused, nothing published', async () => {
  const docs = week1();
  const cases: Array<[string, CrawledDocument[], RegExp]> = [
    ['twice', [...docs, docs[0]], /lists .* more than once/],
    [
      'elsewhere',
      [
        ...docs,
        {
          record: { ...docs[0].record, url: 'http://example.org/alias', downloadedBy: docs[0].record.url },
          statements: docs[0].statements,
        },
      ],
      /brings statements although another fetch downloaded its final URL/,
    ],
  ];
  for (const [label, crawl, message] of cases) {
    const root = await tempDir(label);
    const documents: PublishOptions['documents'] = source(crawl);
    await assert.rejects(publishWeek(root, WEEK1, documents), message, label);
  }
});

/** `count` statements about `subject`, every 1,000th the same triple: repeated within and across journal lines. */
function manyStatements(subject: string, count: number): Statement[] {
  return Array.from({ length: count }, (_, k) => ({
    subject,
    predicate: 'http://vocab.example/p',
    object: k % 1000 === 999 ? 'again' : `value ${k} of a document longer than a journal line`,
    objectKind: 'literal' as const,
    datatype: 'http://www.w3.org/2001/XMLSchema#string',
    lang: null,
  }));
}

test('a document split across journal lines publishes as one graph, a triple repeated across its lines once', async () => {
  const docs = week1();
  const large = docs.findIndex((d) => d.statements.length > 0 && !d.record.downloadedBy);
  const count = 30_000;
  docs[large] = { ...docs[large], statements: manyStatements(docs[large].record.finalUrl!, count) };
  const dir = await journalOf(docs);
  const file = join(dir, JOURNAL_FILE);
  assert.ok(readFileSync(file, 'utf8').includes('{"t":"part"'), 'the document was split');
  const fromJournal = await publishLogged(() => readJournalDocuments(dir));
  const fallback = 'DuckDB cannot read every journal line: reading it line by line';
  assert.ok(!fromJournal.messages.includes(fallback), 'DuckDB read the journal itself');
  const [[rows]] =
    await readRows(`SELECT count(*) FROM read_parquet('${join(fromJournal.folder, 'quads.parquet')}')
    WHERE graph = '${docs[large].record.finalUrl}'`);
  assert.equal(rows, count - count / 1000 + 1);
  // the parts a crawl killed while writing this document left before the journal's lines: only the
  // line-by-line reader tells them from the document's, and publishes the same
  const lines = readFileSync(file, 'utf8').split('\n');
  const firstPart = lines.findIndex((l) => l.startsWith('{"t":"part"'));
  const orphans = [lines[firstPart], lines[firstPart + 1]].map((l) => l.replace(/"at":\d+/, '"at":0'));
  writeFileSync(file, [...orphans, ...lines].join('\n'));
  const withOrphans = await publishLogged(() => readJournalDocuments(dir));
  assert.ok(withOrphans.messages.includes(fallback));
  const fromDocuments = await publishLogged(source(docs));
  assert.deepEqual(await contents(withOrphans.folder), await contents(fromJournal.folder));
  assert.deepEqual(await contents(fromDocuments.folder), await contents(fromJournal.folder));
});

/**
 * A journal line as journals were written before each statement was written once: without
 * `"distinct":true`, and with `repeat` (a packed statement) again at the end of its statements.
 */
function withoutDistinct(line: string, repeat: string): string {
  return `${line.replace(',"distinct":true', '').slice(0, -2)},${repeat}]}`;
}

test('a journal written before statements were written once, with repeats in and across lines, publishes the same', async () => {
  const docs = week1();
  const large = docs.findIndex((d) => d.statements.length > 0 && !d.record.downloadedBy);
  docs[large] = { ...docs[large], statements: manyStatements(docs[large].record.finalUrl!, 30_000) };
  const dir = await journalOf(docs);
  const file = join(dir, JOURNAL_FILE);
  const current = await publishLogged(() => readJournalDocuments(dir));
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.ok(lines.filter((l) => l.startsWith('{"t":"part"')).length > 1, 'the document was split');
  // every line of a document repeats the first statement of the document (of its first line)
  let first = '';
  const old = lines.map((line) => {
    if (!/^\{"t":"(doc|part)"/.test(line)) return line;
    const head = /"statements":\[(\[[^\]]*\])/.exec(line);
    first ||= head?.[1] ?? '';
    const repeated = head === null ? line.replace(',"distinct":true', '') : withoutDistinct(line, first);
    if (line.startsWith('{"t":"doc"')) first = '';
    return repeated;
  });
  writeFileSync(file, old.join('\n'));
  assert.ok(!old.some((l) => l.includes('"distinct"')));
  const fromOld = await publishLogged(() => readJournalDocuments(dir));
  const fallback = 'DuckDB cannot read every journal line: reading it line by line';
  assert.ok(!fromOld.messages.includes(fallback), 'DuckDB read the old journal itself');
  assert.deepEqual(await contents(fromOld.folder), await contents(current.folder));
});

test('a 40 MB document stages under a 256MB DuckDB memory limit', async () => {
  const dir = await tempDir('40mb');
  const url = 'http://example.org/large';
  const statements = manyStatements(url, 400_000);
  const journal = openJournal(dir);
  journal.append({ t: 'doc', depth: 0, record: { ...week1()[0].record, url, finalUrl: url }, statements });
  journal.close();
  const file = join(dir, JOURNAL_FILE);
  assert.ok(readFileSync(file).length > 40e6);
  const session = await openDuckDb({ path: join(dir, 'staging.duckdb'), memoryLimit: '256MB' });
  try {
    const log = { info: () => {}, warn: () => {} } as unknown as Logger;
    const staged = await stageCrawl(session.connection, { file }, '', join(dir, 'clean.ndjson'), log);
    assert.equal(staged.documents, 1);
    const [[rows]] = await queryRows(session.connection, 'SELECT count(*) FROM stage_quads');
    assert.equal(Number(rows), 400_000 - 400 + 1);
  } finally {
    session.close();
  }
});
