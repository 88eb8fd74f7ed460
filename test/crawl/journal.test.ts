import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DocumentRecord, Statement } from '../../pipeline/core/index.ts';
import { JOURNAL_FILE, openJournal, readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { scanJournal, writeJournalDocuments } from '../../pipeline/crawl/journal.ts';

const record: DocumentRecord = {
  url: 'http://ex.org/a',
  finalUrl: 'http://ex.org/data/a',
  pld: 'ex.org',
  segment: 'expand',
  round: 0,
  fetchedAt: 1_700_000_000_000,
  durationMs: 12,
  status: 200,
  error: null,
  errorMessage: null,
  contentType: 'text/turtle',
  format: 'turtle',
  bytes: 10,
  statements: 2,
  contentSha256: 'ab',
  graphHash: 'exact:cd',
  etag: null,
  lastModified: null,
  headers: { 'content-type': 'text/turtle' },
  redirects: [{ from: 'http://ex.org/a', to: 'http://ex.org/data/a', status: 303, at: 1 }],
};

const statements: Statement[] = [
  {
    subject: 'http://ex.org/a',
    predicate: 'http://p/',
    object: 'Zürich\n"x"',
    objectKind: 'literal',
    datatype: 'http://www.w3.org/2001/XMLSchema#string',
    lang: null,
  },
  {
    subject: '_:b1',
    predicate: 'http://p/',
    object: 'http://ex.org/b',
    objectKind: 'iri',
    datatype: null,
    lang: null,
  },
];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'journal-'));
}

test('a journal replays what was appended, statements intact', async () => {
  const dir = tempDir();
  const j = openJournal(dir);
  j.append({ t: 'round', round: 0, urls: [['http://ex.org/a', 0]] });
  j.append({ t: 'doc', depth: 0, record, statements });
  j.close();
  const again = openJournal(dir);
  const lines = [...again.replay()];
  assert.equal(lines.length, 2);
  const doc = lines[1];
  assert.equal(doc.t, 'doc');
  if (doc.t === 'doc') assert.deepEqual(doc.statements, statements);
  again.close();
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs, [{ record, statements }]);
});

test('RDF 1.2 terms and graph names are packed only where set, and replay as they were appended', async () => {
  const rdf12: Statement[] = [
    ...statements,
    {
      ...statements[0],
      datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString',
      lang: 'ar',
      direction: 'rtl',
    },
    {
      ...statements[1],
      object: '<<( _:b1 <http://p/> "x"@en--ltr )>>',
      objectKind: 'triple',
      sourceGraph: '_:g',
    },
    { ...statements[0], lang: 'de', direction: 'ltr', sourceGraph: 'http://ex.org/g' },
  ];
  const dir = tempDir();
  const j = openJournal(dir);
  j.append({ t: 'doc', depth: 0, record: { ...record, statements: rdf12.length }, statements: rdf12 });
  j.close();
  const line = JSON.parse(readFileSync(join(dir, JOURNAL_FILE), 'utf8')) as { statements: unknown[][] };
  assert.deepEqual(
    line.statements.map((p) => p.slice(3)),
    [
      ['l', 'http://www.w3.org/2001/XMLSchema#string', null],
      ['i', null, null],
      ['l', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString', 'ar', 'rtl'],
      ['t', null, null, null, '_:g'],
      ['l', 'http://www.w3.org/2001/XMLSchema#string', 'de', 'ltr', 'http://ex.org/g'],
    ],
  );
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs[0].statements, rdf12);
});

test('a torn last line (kill -9 mid-write) is cut off, and appending goes on after it', () => {
  const dir = tempDir();
  const j = openJournal(dir);
  j.append({ t: 'round', round: 0, urls: [] });
  j.close();
  appendFileSync(join(dir, JOURNAL_FILE), '{"t":"doc","depth":0,"rec');
  const again = openJournal(dir);
  assert.equal([...again.replay()].length, 1);
  again.append({ t: 'end' });
  again.close();
  assert.equal(
    readFileSync(join(dir, JOURNAL_FILE), 'utf8'),
    '{"t":"round","round":0,"urls":[]}\n{"t":"end"}\n',
  );
});

test('a damaged line inside the journal is skipped and described, the lines around it replayed', () => {
  const dir = tempDir();
  const doc = JSON.stringify({ t: 'doc', depth: 0, record, statements: [] });
  const torn = doc.slice(0, doc.indexOf('"finalUrl"') + 12);
  writeFileSync(
    join(dir, JOURNAL_FILE),
    `{"t":"round","round":0,"urls":[]}\n${torn}\n{"t":"round","round":1\n{"t":"end"}\n`,
  );
  const j = openJournal(dir);
  assert.deepEqual(
    [...j.replay()].map((l) => l.t),
    ['round', 'end'],
  );
  assert.deepEqual(j.damaged, [
    { line: 2, kind: 'doc', url: record.url, round: null },
    { line: 3, kind: 'round', url: null, round: 1 },
  ]);
  j.close();
});

test('U+2028 and U+2029 are written escaped, and raw ones (older journals) are read as part of their line', async () => {
  const dir = tempDir();
  const separated = [{ ...statements[0], object: 'a\u2028b\u2029c' }];
  const j = openJournal(dir);
  j.append({ t: 'doc', depth: 0, record, statements: separated });
  j.close();
  const text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
  assert.ok(!/[\u2028\u2029]/.test(text) && text.includes('a\\u2028b\\u2029c'));
  writeFileSync(join(dir, JOURNAL_FILE), text.replace('\\u2028', '\u2028').replace('\\u2029', '\u2029'));
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs, [{ record, statements: separated }]);
  const again = openJournal(dir);
  assert.equal([...again.replay()].length, 1);
  assert.equal(again.damaged.length, 0);
  again.close();
});

test('scanJournal counts and hashes document lines without parsing, in any line order', async () => {
  const dir = tempDir();
  const j = openJournal(dir);
  j.append({ t: 'round', round: 0, urls: [['http://ex.org/a', 0]] });
  j.append({ t: 'doc', depth: 0, record, statements });
  j.append({ t: 'doc', depth: 1, record: { ...record, url: 'http://ex.org/b' }, statements: [] });
  j.append({ t: 'end' });
  j.close();
  const file = join(dir, JOURNAL_FILE);
  const scan = await scanJournal(file);
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.deepEqual(
    { docLines: scan.docLines, regular: scan.regular, longestLine: scan.longestLine },
    { docLines: 2, regular: true, longestLine: Math.max(...lines.map((l) => Buffer.byteLength(l))) },
  );
  const reordered = join(dir, 'reordered.ndjson');
  writeFileSync(reordered, `${[lines[2], lines[3], lines[1], lines[0]].join('\n')}\n`);
  assert.equal((await scanJournal(reordered)).lineHashSum, scan.lineHashSum, 'order-independent');
  writeFileSync(reordered, `${[lines[0], lines[2], lines[3]].join('\n')}\n`);
  assert.notEqual((await scanJournal(reordered)).lineHashSum, scan.lineHashSum, 'covers every document');
});

test('scanJournal calls a journal irregular when a line is not one this module writes, or the last is torn', async () => {
  const dir = tempDir();
  const file = join(dir, JOURNAL_FILE);
  const doc = JSON.stringify({ t: 'doc', depth: 0, record, statements: [] });
  for (const [text, regular] of [
    [`${doc}\n{"t":"end"}\n`, true],
    [`${doc}\n{"t":"end"}`, false],
    [`${doc}\n${doc.slice(0, 20)}`, false],
    [`${doc}\n\n{"t":"end"}\n`, false],
    [`{"depth":0,"t":"doc"}\n`, false],
    ['', true],
  ] as const) {
    writeFileSync(file, text);
    assert.equal((await scanJournal(file)).regular, regular, JSON.stringify(text.slice(-30)));
  }
});

test('readJournalDocuments names its journal file, so that a publish reads it in place', () => {
  const dir = tempDir();
  assert.equal(readJournalDocuments(dir).journal.file, join(dir, JOURNAL_FILE));
});

test('writeJournalDocuments writes readable document lines, lone surrogates as U+FFFD', async () => {
  const dir = tempDir();
  const file = join(dir, JOURNAL_FILE);
  const lone = [{ ...statements[0], object: 'a\ud800b' }];
  async function* documents() {
    yield { record: { ...record, headers: { 'x-\udc00': 'v\udfff' } }, statements: lone };
  }
  await writeJournalDocuments(file, documents());
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs, [
    {
      record: { ...record, headers: { 'x-\ufffd': 'v\ufffd' } },
      statements: [{ ...statements[0], object: 'a\ufffdb' }],
    },
  ]);
  assert.equal((await scanJournal(file)).regular, true);
});

test('a journal of lines longer than the read chunk, multi-byte characters across chunk edges, replays exactly', () => {
  const dir = tempDir();
  const j = openJournal(dir);
  // 3-byte characters shifted by one byte per document, so that chunk edges fall inside them
  const docs = Array.from({ length: 6 }, (_, i) => ({
    t: 'doc' as const,
    depth: i,
    record: { ...record, url: `http://ex.org/${i}` },
    statements: Array.from({ length: 20_000 }, (_, k) => ({
      ...statements[0],
      object: `${'x'.repeat(i)}€ ${k} Zürich ${'☃'.repeat(k % 7)}`,
    })),
  }));
  j.append({ t: 'round', round: 0, urls: [['http://ex.org/0', 0]] });
  for (const doc of docs) j.append(doc);
  j.append({ t: 'end' });
  j.close();
  const lines = [...openJournal(dir).replay()];
  assert.deepEqual(
    lines.map((l) => l.t),
    ['round', 'doc', 'doc', 'doc', 'doc', 'doc', 'doc', 'end'],
  );
  assert.deepEqual(lines.slice(1, -1), docs);
});

test('a document line within the line bound is the JSON text of the whole line, separators escaped', () => {
  const dir = tempDir();
  const j = openJournal(dir);
  const many: Statement[] = Array.from({ length: 5_000 }, (_, k) => ({
    ...statements[0],
    object: k === 4_500 ? 'line\u2028separator' : `value ${k}`,
  }));
  j.append({ t: 'doc', depth: 1, record, statements: many });
  j.close();
  const text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
  const packed = many.map((s) => [s.subject, s.predicate, s.object, 'l', s.datatype, s.lang]);
  const whole = JSON.stringify({ t: 'doc', depth: 1, record, distinct: true, statements: packed });
  assert.equal(text, `${whole.replace('\u2028', '\\u2028')}\n`);
});

/** A document of `count` statements of about 100 characters each: several lines of the journal. */
function largeDocument(count: number, url = record.url) {
  return {
    t: 'doc' as const,
    depth: 2,
    record: { ...record, url },
    statements: Array.from({ length: count }, (_, k) => ({
      ...statements[0],
      // a repeated statement, within and across lines: the journal writes it once
      object: k % 1000 === 999 ? 'again' : `value ${k} ${'€'.repeat(k % 5)}`,
    })),
  };
}

/** The document as its journal lines give it back: each statement once, where it first came. */
function once<T extends { statements: readonly Statement[] }>(doc: T): T {
  const seen = new Map(doc.statements.map((s) => [JSON.stringify(s), s]));
  return { ...doc, statements: [...seen.values()] };
}

test('a document longer than a line is written as part lines, then its document line, and reads back whole', async () => {
  const dir = tempDir();
  const doc = largeDocument(40_000);
  const j = openJournal(dir);
  j.append({ t: 'round', round: 0, urls: [[record.url, 0]] });
  j.append(doc);
  j.append({ t: 'end' });
  j.close();
  const file = join(dir, JOURNAL_FILE);
  const lines = readFileSync(file, 'utf8').split('\n').slice(0, -1);
  const kinds = lines.map((l) => (JSON.parse(l) as { t: string }).t);
  assert.ok(kinds.length > 4, `${kinds.length} lines`);
  assert.deepEqual(kinds, ['round', ...Array(kinds.length - 3).fill('part'), 'doc', 'end']);
  for (const line of lines) assert.ok(Buffer.byteLength(line) < 2 * 2 ** 20, 'every line bounded');
  // the parts name the byte offset of the first, which the document line names with their count
  const at = Buffer.byteLength(`${lines[0]}\n`);
  const head = JSON.parse(lines.at(-2)!) as { parts: unknown };
  assert.deepEqual(head.parts, { at, count: kinds.length - 3 });
  for (const part of lines.slice(1, -2)) assert.equal((JSON.parse(part) as { at: number }).at, at);
  // the 40 repeats of one triple, across lines, are written once, and every line says so
  const written = lines
    .slice(1, -1)
    .map((l) => JSON.parse(l) as { distinct: boolean; statements: string[][] });
  assert.ok(written.every((l) => l.distinct === true));
  assert.equal(written.flatMap((l) => l.statements).filter((p) => p[2] === 'again').length, 1);
  const replayed = [...openJournal(dir).replay()];
  assert.deepEqual(replayed[1], once(doc));
  assert.equal(once(doc).statements.length, 40_000 - 39);
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs, [{ record: doc.record, statements: once(doc).statements }]);
  const scan = await scanJournal(file);
  assert.deepEqual(
    { docLines: scan.docLines, partLines: scan.partLines, regular: scan.regular },
    { docLines: 1, partLines: kinds.length - 3, regular: true },
  );
  // writeJournalDocuments (the publisher's clean copy) writes the same lines
  const copy = join(dir, 'copy.ndjson');
  await writeJournalDocuments(
    copy,
    (async function* () {
      yield { record: doc.record, statements: doc.statements };
    })(),
  );
  const copied = readFileSync(copy, 'utf8');
  assert.equal(copied.split('\n').length, kinds.length - 1);
  assert.deepEqual(JSON.parse(copied.split('\n').at(-2)!).parts, { at: 0, count: kinds.length - 3 });
});

test('parts left by a crawl killed while writing them are ignored, and the document written again reads whole', async () => {
  const dir = tempDir();
  const doc = largeDocument(30_000);
  const j = openJournal(dir);
  j.append({ t: 'round', round: 0, urls: [[record.url, 0]] });
  j.append(doc);
  j.close();
  const file = join(dir, JOURNAL_FILE);
  const lines = readFileSync(file, 'utf8').split('\n');
  // killed while writing its second part: one whole part and a torn one are on disk
  writeFileSync(file, `${lines.slice(0, 2).join('\n')}\n${lines[2].slice(0, 1000)}`);
  const resumed = openJournal(dir);
  assert.deepEqual(
    [...resumed.replay()].map((l) => l.t),
    ['round'],
  );
  assert.equal(resumed.damaged.length, 0, 'parts without their document are no damage');
  resumed.append(doc);
  resumed.append({ t: 'end' });
  resumed.close();
  const again = openJournal(dir);
  const replayed = [...again.replay()];
  assert.deepEqual(replayed, [{ t: 'round', round: 0, urls: [[record.url, 0]] }, once(doc), { t: 'end' }]);
  assert.equal(again.damaged.length, 0);
  again.close();
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs, [{ record: doc.record, statements: once(doc).statements }]);
});

test('a damaged part line makes its document damaged, reported by the URL its document line gives', async () => {
  const dir = tempDir();
  const j = openJournal(dir);
  j.append(largeDocument(30_000));
  j.append(largeDocument(10, 'http://ex.org/small'));
  j.close();
  const file = join(dir, JOURNAL_FILE);
  const lines = readFileSync(file, 'utf8').split('\n');
  const headLine = lines.findIndex((l) => l.startsWith('{"t":"doc"'));
  lines[1] = lines[1].slice(0, 500);
  writeFileSync(file, lines.join('\n'));
  const again = openJournal(dir);
  assert.deepEqual(
    [...again.replay()].map((l) => (l.t === 'doc' ? l.record.url : l.t)),
    ['http://ex.org/small'],
  );
  assert.deepEqual(again.damaged, [{ line: headLine + 1, kind: 'doc', url: record.url, round: null }]);
  again.close();
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d.record.url);
  assert.deepEqual(docs, ['http://ex.org/small']);
});
