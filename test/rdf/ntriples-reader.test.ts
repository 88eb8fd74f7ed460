/**
 * The plain-form N-Triples/N-Quads reader against n3, the parser of record: on every W3C
 * N-Triples and N-Quads syntax test (RDF 1.1 and 1.2, fixtures/w3c-rdf-tests, W3C test-suite
 * licence) and on thousands of mutated lines, whatever the reader accepts must be exactly what
 * n3 gives (same statements, no error), and the adapter must give what n3 gives on everything.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readPlainLines } from '../../pipeline/rdf/ntriples-reader.ts';
import { lineFormatParser } from '../../pipeline/rdf/parse-line-formats.ts';
import { n3FamilyParser } from '../../pipeline/rdf/parse-n3-family.ts';
import { createStatementBuilder } from '../../pipeline/rdf/statement-builder.ts';
import type { SyntaxParser } from '../../pipeline/rdf/syntax-parser.ts';
import { bodyEncoding } from '../../pipeline/rdf/text-encoding.ts';

type Format = 'N-Triples' | 'N-Quads';
const BASE = 'http://example.org/dir/doc';
const W3C = new URL('./fixtures/w3c-rdf-tests/', import.meta.url).pathname;
const n3: Record<Format, SyntaxParser> = {
  'N-Triples': n3FamilyParser('N-Triples'),
  'N-Quads': n3FamilyParser('N-Quads'),
};
const ours: Record<Format, SyntaxParser> = {
  'N-Triples': lineFormatParser('N-Triples'),
  'N-Quads': lineFormatParser('N-Quads'),
};

async function run(parser: SyntaxParser, text: string) {
  const builder = createStatementBuilder(BASE);
  const body = Buffer.from(text);
  const encoding = bodyEncoding(body, null);
  const error = await parser({
    text,
    body,
    encoding,
    baseIri: BASE,
    builder,
    maxContexts: 8,
    mediaType: null,
  });
  return { statements: builder.statements, error };
}

/** What the plain reader reads; null when unsure. */
function plain(text: string, format: Format) {
  const builder = createStatementBuilder(BASE);
  return readPlainLines(Buffer.from(text), format === 'N-Quads', builder) ? builder.statements : null;
}

const suites: [string, Format][] = [
  ['rdf-n-triples', 'N-Triples'],
  ['rdf12-n-triples', 'N-Triples'],
  ['rdf-n-quads', 'N-Quads'],
  ['rdf12-n-quads', 'N-Quads'],
];

for (const [dir, format] of suites) {
  test(`W3C ${dir}: the adapter gives n3's statements and errors, the plain reader agrees where it reads`, async () => {
    let read = 0;
    for (const file of readdirSync(join(W3C, dir)).sort()) {
      const text = readFileSync(join(W3C, dir, file), 'utf8');
      // every N-Triples file is also an N-Quads document
      for (const as of format === 'N-Quads' ? (['N-Quads'] as const) : (['N-Triples', 'N-Quads'] as const)) {
        const expected = await run(n3[as], text);
        assert.deepEqual(await run(ours[as], text), expected, `${file} as ${as}`);
        const statements = plain(text, as);
        if (statements === null) continue;
        read++;
        assert.deepEqual({ statements, error: null }, expected, `${file} read as plain ${as}`);
      }
    }
    // the RDF 1.1 suites are mostly in the plain form: the fast path is what they exercise
    if (!dir.startsWith('rdf12')) assert.ok(read >= 40, `only ${read} files read in the plain form`);
  });
}

test('the plain reader reads the usual forms: escapes, tags, datatypes, labels, comments, CR LF', () => {
  const text =
    '# header\r\n<http://a/s> <http://a/p> "x \\"q\\" \\u00E9 \\U0001F600 \\t"@en-GB .\r\n' +
    '\n  <http://a/s>\t<http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> . # trailing\n' +
    '_:b1 <http://a/p> _:b-2 .\n<http://a/s><http://a/p><http://a/o>.\n<http://a/s> <http://a/p> "" .';
  const statements = plain(text, 'N-Triples');
  assert.ok(statements);
  assert.equal(statements.length, 5);
  assert.equal(statements[0].object, 'x "q" é 😀 \t');
  assert.equal(statements[0].lang, 'en-gb');
  assert.match(statements[2].subject, /^_:b[0-9a-f]{8}_b1$/);
});

test("the parse bench's lines (test/bench/parse.bench.ts): the plain reader reads them as n3 does", async () => {
  const EX = 'http://example.org/resource/';
  const lines = Array.from({ length: 2000 }, (_, i) =>
    [
      `<${EX}${i}> <http://xmlns.com/foaf/0.1/name> "Name número ${i}"@en .`,
      `<${EX}${i}> <http://xmlns.com/foaf/0.1/knows> <${EX}${i + 1}> .`,
      `<${EX}${i}> <http://purl.org/dc/terms/title> "A \\"title\\" ${i}" .`,
      `<${EX}${i}> <http://example.org/resource/value> _:v${i} .`,
      `_:v${i} <http://example.org/resource/n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
    ].join('\n'),
  );
  const text = `${lines.join('\n')}\n`;
  const statements = plain(text, 'N-Triples');
  assert.equal(statements?.length, 10_000);
  assert.deepEqual({ statements, error: null }, await run(n3['N-Triples'], text));
});

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED_LINES = [
  '<http://a/s> <http://a/p> <http://a/o> .',
  '<http://a/s> <http://a/p> "v\\u00e9\\n\\"x\\\\"@en-gb .',
  '_:a.b <http://a/p> "1"^^<http://a/dt> <http://a/g> .',
  '_:x1 <http://a/p> _:y-2 _:g . # c',
  '<http://a/s>\t<http://a/p>\t"\\U0001F600"@de--ltr\t.',
  '<rel> <http://a/p> <http://a/o#f> .',
  '<http://a/s> <http://a/p> <<( <http://a/s> <http://a/p> "o" )>> .',
  '<http://a/s> <http://a/p> "abc"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .',
  '<http://a/s> <http://a/p> "x"@abcdefghi .',
];
const INSERTS = [
  '<',
  '>',
  '"',
  '\\',
  '_',
  ':',
  '.',
  '@',
  '^',
  '#',
  ' ',
  '\t',
  '\r',
  '\n',
  'é',
  'u',
  '-',
  '9',
];

test('mutated lines: whatever the plain reader accepts, n3 reads the same', async () => {
  const next = random(14);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  let accepted = 0;
  for (let i = 0; i < 6000; i++) {
    let text = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(SEED_LINES)).join('\n');
    for (let m = Math.floor(next() * 3); m > 0; m--) {
      const at = Math.floor(next() * (text.length + 1));
      const kind = next();
      if (kind < 0.4) text = text.slice(0, at) + text.slice(at + 1);
      else if (kind < 0.8) text = text.slice(0, at) + pick(INSERTS) + text.slice(at);
      else text = text.slice(0, at) + text.slice(at, at + 1) + text.slice(at);
    }
    for (const format of ['N-Triples', 'N-Quads'] as const) {
      const statements = plain(text, format);
      if (statements === null) continue;
      accepted++;
      assert.deepEqual({ statements, error: null }, await run(n3[format], text), JSON.stringify(text));
    }
  }
  assert.ok(accepted > 800, `only ${accepted} mutated documents read in the plain form`);
});
