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

test('damage inside the journal is corrupt, with file and line', () => {
  const dir = tempDir();
  writeFileSync(join(dir, JOURNAL_FILE), '{"t":"end"}\nnot json\n{"t":"end"}\n');
  assert.throws(
    () => openJournal(dir),
    (e: Error & { code?: string }) => {
      return e.code === 'corrupt' && /journal\.ndjson:2/.test(e.message);
    },
  );
});
