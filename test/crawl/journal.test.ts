import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DocumentRecord, Statement } from '../../pipeline/core/index.ts';
import { JOURNAL_FILE, openJournal, readJournalDocuments } from '../../pipeline/crawl/index.ts';

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
  assert.equal(again.replay.length, 2);
  const doc = again.replay[1];
  assert.equal(doc.t, 'doc');
  if (doc.t === 'doc') assert.deepEqual(doc.statements, statements);
  again.close();
  const docs = [];
  for await (const d of readJournalDocuments(dir)) docs.push(d);
  assert.deepEqual(docs, [{ record, statements }]);
});

test('a torn last line (kill -9 mid-write) is cut off, and appending goes on after it', () => {
  const dir = tempDir();
  const j = openJournal(dir);
  j.append({ t: 'round', round: 0, urls: [] });
  j.close();
  appendFileSync(join(dir, JOURNAL_FILE), '{"t":"doc","depth":0,"rec');
  const again = openJournal(dir);
  assert.equal(again.replay.length, 1);
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
    j.replay.map((l) => l.t),
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
  assert.equal(again.damaged.length, 0);
  again.close();
});
