import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { ObjectKind, Statement } from '../../pipeline/core/index.ts';
import { serializeNQuads } from '../../pipeline/rdf/index.ts';
import { tripleTermText } from '../../pipeline/rdf/triple-term.ts';
import { openDuckDb, sqlString } from '../../pipeline/snapshot/duckdb-session.ts';
import { exportNquads } from '../../pipeline/snapshot/nquads-export.ts';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const RDF_DIR_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';

/** Every character class the escaping treats apart, alone and mixed with ordinary text. */
const HOSTILE = [
  'plain',
  '',
  'quote " and backslash \\ and \\n written out',
  `controls ${Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('')} del \u007f`,
  'separators \u2028 \u2029 next line \u0085 nbsp \u00a0',
  'non-BMP 😀 𝄞 and ünïcödé',
  'lone surrogates \ud800 x \udfff y \udbff',
  'iri-unsafe <>"{}|^`\\ and space and %20',
  '_:looks-blank',
  // the escapes are chosen by a full match of the characters that need none: a character to
  // escape first, last or alone must still be found
  '"first and last\\',
  '\n',
  'ends in a space ',
];

/** A quad of every shape (IRI, blank node and literal terms, every literal form) for each hostile string. */
function hostileQuads(): Array<{ graph: string; statement: Statement }> {
  const out: Array<{ graph: string; statement: Statement }> = [];
  const st = (
    subject: string,
    predicate: string,
    object: string,
    objectKind: ObjectKind,
    datatype: string | null = null,
    lang: string | null = null,
  ): Statement => ({
    subject,
    predicate,
    object,
    objectKind,
    datatype,
    lang,
  });
  for (const h of HOSTILE) {
    const graph = `http://g.example/${h}`;
    for (const statement of [
      st(`http://s.example/${h}`, `http://p.example/${h}`, `http://o.example/${h}`, 'iri'),
      st('_:b1', 'http://p.example/', '_:b2', 'bnode'),
      st('_:b1', 'http://p.example/', h, 'literal'),
      st('_:b1', 'http://p.example/', h, 'literal', XSD_STRING),
      st('_:b1', 'http://p.example/', h, 'literal', `http://dt.example/${h}`),
      st(
        '_:b1',
        'http://p.example/',
        h,
        'literal',
        'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString',
        'en-GB',
      ),
      // RDF 1.2: a directional literal, a triple term, and a statement in the publisher's graph
      {
        ...st('_:b1', 'http://p.example/', h, 'literal', RDF_DIR_LANG_STRING, 'ar'),
        direction: 'rtl' as const,
      },
      st(
        `http://s.example/${h}`,
        'http://p.example/',
        tripleTermText(st('_:b1', `http://p.example/${h}`, h, 'literal', XSD_STRING)),
        'triple',
      ),
      {
        ...st('_:b1', 'http://p.example/', h, 'literal', RDF_LANG_STRING, 'en'),
        sourceGraph: `http://sg/${h}`,
      },
    ]) {
      out.push({ graph, statement });
    }
  }
  return out;
}

test('the N-Quads DuckDB writes are the bytes serializeNQuads writes, hostile strings included', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'nquads-sql-'));
  const session = await openDuckDb();
  try {
    const { connection } = session;
    const quads = hostileQuads();
    await connection.run(`CREATE TABLE q (graph VARCHAR, subject VARCHAR, predicate VARCHAR, object VARCHAR,
      object_kind VARCHAR, datatype VARCHAR, lang VARCHAR, direction VARCHAR, source_graph VARCHAR)`);
    const appender = await connection.createAppender('q');
    for (const { graph, statement: s } of quads) {
      const row = [graph, s.subject, s.predicate, s.object, s.objectKind, s.datatype, s.lang];
      for (const value of [...row, s.direction ?? null, s.sourceGraph ?? null]) {
        if (value === null) appender.appendNull();
        else appender.appendVarchar(value);
      }
      appender.endRow();
    }
    appender.closeSync();
    const parquet = join(dir, 'quads.parquet');
    await connection.run(`COPY q TO ${sqlString(parquet)} (FORMAT parquet)`);
    await exportNquads(connection, parquet, join(dir, 'data.nq.gz'), join(dir, 'data.nq'));

    const expected = quads.map(({ graph, statement }) => serializeNQuads([statement], graph)).join('');
    const written = gunzipSync(await readFile(join(dir, 'data.nq.gz')));
    assert.equal(written.toString('utf8'), expected);
    assert.ok(written.equals(Buffer.from(expected, 'utf8')), 'byte for byte');
  } finally {
    session.close();
    await rm(dir, { recursive: true, force: true });
  }
});
