/**
 * RDF 1.2 terms and the publisher's graph names from the parser to the published files, along the
 * crawler's own path: documents read by parseDocument, written to a crawl journal, staged by DuckDB
 * from it, published as quads.parquet and data.nq.gz, verified, read back for change detection.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { Parser } from 'n3';
import type { CrawledDocument, Statement } from '../../pipeline/core/index.ts';
import { openJournal, readJournalDocuments } from '../../pipeline/crawl/index.ts';
import { graphHash, parseDocument } from '../../pipeline/rdf/index.ts';
import { openDuckDb, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import {
  publishedQuadsSql,
  QUAD_COLUMNS,
  statementsByGraph,
} from '../../pipeline/snapshot/published-quads.ts';
import { readRows } from './read-rows.ts';
import { publishWeek, record, WEEK1, WEEK2 } from './sample-crawl.ts';

const TURTLE = 'http://example.org/rdf12.ttl';
const TRIG = 'http://example.org/graphs.trig';
const NQUADS = 'http://example.org/graphs.nq';
const WEEK3 = WEEK2 + 7 * 86_400_000;

const BODIES: Record<string, { body: string; contentType: string }> = {
  [TURTLE]: {
    body: readFileSync(new URL('../rdf/fixtures/turtle12-terms.ttl', import.meta.url), 'utf8'),
    contentType: 'text/turtle',
  },
  [TRIG]: {
    body: `@prefix ex: <http://example.org/> .
ex:s ex:p "default" .
ex:g1 { ex:s ex:p "twice" ; ex:q [ ex:r "nested"@en--ltr ] . }
GRAPH ex:g2 { ex:s ex:p "twice" . }
_:g3 { ex:s ex:p <<( ex:s ex:p "twice" )>> . }
`,
    contentType: 'application/trig',
  },
  // the plain form, which the fast N-Quads reader reads
  [NQUADS]: {
    body: `<http://example.org/s> <http://example.org/p> "in g" <http://example.org/g> .
<http://example.org/s> <http://example.org/p> "in g" .
_:x <http://example.org/p> "blank graph" _:g .
`,
    contentType: 'application/n-quads',
  },
};

async function crawled(url: string, at: number, body = BODIES[url].body): Promise<CrawledDocument> {
  const { contentType } = BODIES[url];
  const parsed = await parseDocument({ body: Buffer.from(body), contentType, documentUrl: url });
  assert.equal(parsed.error, null, parsed.errorMessage ?? undefined);
  const statements = parsed.statements;
  return {
    record: record(url, at, {
      contentType,
      format: parsed.format,
      statements: statements.length,
      graphHash: await graphHash(statements),
    }),
    statements,
  };
}

/** Publishes `docs` as the week starting `start`, from a crawl journal read in place. */
async function publishFromJournal(start: number, docs: readonly CrawledDocument[]) {
  const dir = await mkdtemp(join(tmpdir(), 'rdf12-journal-'));
  dirs.push(dir);
  const journal = openJournal(dir);
  journal.append({ t: 'round', round: 0, urls: docs.map((d) => [d.record.url, 0] as const) });
  for (const doc of docs) journal.append({ t: 'doc', depth: 0, ...doc });
  journal.append({ t: 'end' });
  journal.close();
  return publishWeek(root, start, () => readJournalDocuments(dir));
}

const dirs: string[] = [];
let root: string;
let folder: string;
let week1: CrawledDocument[];

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'rdf12-publish-'));
  dirs.push(root);
  week1 = await Promise.all([TURTLE, TRIG, NQUADS].map((url) => crawled(url, WEEK1 + 60_000)));
  folder = (await publishFromJournal(WEEK1, week1)).folder;
});
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

test("quads.parquet keeps triple terms, base directions and the publisher's graph names", async () => {
  const rows = await readRows(
    `SELECT graph, object, object_kind, datatype, lang, direction, source_graph
      FROM read_parquet('${folder}/quads.parquet')`,
  );
  const distinct = week1.reduce((n, d) => n + new Set(d.statements.map((s) => JSON.stringify(s))).size, 0);
  assert.equal(rows.length, distinct);
  const triples = rows.filter((r) => r[2] === 'triple');
  assert.equal(triples.length, 5);
  assert.ok(triples.every((r) => /^<<\( .* \)>>$/.test(String(r[1])) && r[3] === null && r[4] === null));
  assert.ok(triples.some((r) => r[1] === '<<( <http://example.org/s> <http://example.org/p> "twice" )>>'));
  const directional = rows.filter((r) => r[5] !== null).map((r) => [r[1], r[3], r[4], r[5]]);
  const DIR = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';
  assert.deepEqual(directional.sort(), [
    ['hello', DIR, 'en-gb', 'ltr'],
    ['nested', DIR, 'en', 'ltr'],
    ['שלום', DIR, 'he', 'rtl'],
  ]);
  const graphs = (graph: string) =>
    rows
      .filter((r) => r[0] === graph)
      .map((r) => String(r[6]).replace(/_:b[0-9a-f]{8}_/, '_:'))
      .sort();
  assert.deepEqual(graphs(TURTLE), Array(10).fill('null'));
  // the same triple in g1 and g2 is two rows; the blank graph name is labelled like any blank node
  assert.deepEqual(graphs(TRIG), [
    '_:g3',
    'http://example.org/g1',
    'http://example.org/g1',
    'http://example.org/g1',
    'http://example.org/g2',
    'null',
  ]);
  assert.deepEqual(graphs(NQUADS), ['_:g', 'http://example.org/g', 'null']);
});

test('data.nq.gz is N-Quads 1.2 in the document graphs, one line per row, and the folder verifies', async () => {
  const text = gunzipSync(await readFile(join(folder, 'data.nq.gz'))).toString('utf8');
  const quads = new Parser({ format: 'N-Quads' }).parse(text);
  const [[rows]] = await readRows(`SELECT count(*) FROM read_parquet('${folder}/quads.parquet')`);
  assert.equal(quads.length, Number(rows));
  assert.ok(quads.every((q) => [TURTLE, TRIG, NQUADS].includes(q.graph.value)));
  assert.ok(text.includes(` "שלום"@he--rtl <${TURTLE}> .\n`));
  assert.ok(text.includes(` <<( <http://example.org/s> <http://example.org/p> "twice" )>> <${TRIG}> .\n`));
  // the triple the publisher put in two graphs is one line per row: the lines repeat
  const twice = text
    .split('\n')
    .filter((l) => l === `<http://example.org/s> <http://example.org/p> "twice" <${TRIG}> .`);
  assert.equal(twice.length, 2);
  assert.equal((await verifySnapshot(folder)).quads, Number(rows));
});

test('statements read back from quads.parquet hash as the crawler hashed them', async () => {
  const session = await openDuckDb();
  try {
    const byGraph = await statementsByGraph(
      session.connection,
      `SELECT ${QUAD_COLUMNS} FROM ${await publishedQuadsSql(folder)}`,
    );
    for (const doc of week1) {
      const back: Statement[] = byGraph.get(doc.record.url) ?? [];
      assert.equal(await graphHash(back), doc.record.graphHash, doc.record.url);
    }
  } finally {
    session.close();
  }
});

test('change detection: the same documents are unchanged; a triple moved to another graph is one removed, one added', async () => {
  // week 2 reads the same bodies again; week 3 moves "in g" from g to h in the N-Quads document
  await publishFromJournal(
    WEEK2,
    await Promise.all([TURTLE, TRIG, NQUADS].map((url) => crawled(url, WEEK2 + 60_000))),
  );
  const moved = BODIES[NQUADS].body.replace('"in g" <http://example.org/g>', '"in g" <http://example.org/h>');
  const { folder: third } = await publishFromJournal(WEEK3, [
    await crawled(TURTLE, WEEK3 + 60_000),
    await crawled(TRIG, WEEK3 + 60_000),
    await crawled(NQUADS, WEEK3 + 60_000, moved),
  ]);
  const changes = (name: string) =>
    readRows(
      `SELECT url, changed, added, removed FROM read_parquet('${join(root, name)}/changes.parquet') ORDER BY url`,
    );
  assert.deepEqual(await changes('2026-11-23'), [
    [NQUADS, false, 0, 0],
    [TRIG, false, 0, 0],
    [TURTLE, false, 0, 0],
  ]);
  assert.deepEqual(await changes(third.split('/').at(-1)!), [
    [NQUADS, true, 1, 1],
    [TRIG, false, 0, 0],
    [TURTLE, false, 0, 0],
  ]);
});
