import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Parser } from 'n3';
import { createNQuadsWriter, serializeNQuads } from '../../pipeline/rdf/index.ts';
import { independentCount } from './external-tools.ts';
import { link, literal } from './statements.ts';

const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

const GRAPH = 'http://example.org/doc with space';
const hostileLiterals = [
  'quote " backslash \\ end\\',
  'newline \n return \r tab \t backspace \b formfeed \f',
  'controls \u0000 \u0001 \u001f \u007f',
  'non-ASCII é 日本 😀 and a lone surrogate \ud800 .',
  '"@en ^^<http://x> . <http://y> .',
];
const hostile = [
  ...hostileLiterals.map((v, i) => literal(`http://ex.org/s${i}`, 'http://ex.org/p', v)),
  link('http://ex.org/a b>c<d"e{f}g|h^i`j\\k', 'http://ex.org/p\u0001', 'http://ex.org/日本#frag'),
  link('_:b12345678_0', 'http://ex.org/ü', '_:b12345678_1'),
  literal('http://ex.org/s', 'http://ex.org/p', 'x', 'en-gb'),
  literal('http://ex.org/s', 'http://ex.org/p', '1', null, 'http://ex.org/dt with space'),
];

function readBack(nquads: string) {
  return new Parser({ format: 'N-Quads' }).parse(nquads);
}

test('serializeNQuads: hostile statements are valid N-Quads for serdi and rapper', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'nq-')), 'hostile.nq');
  writeFileSync(file, serializeNQuads(hostile, GRAPH));
  assert.equal(independentCount('serdi', 'nquads', file, 'http://example.org/'), hostile.length);
  assert.equal(independentCount('rapper', 'nquads', file, 'http://example.org/'), hostile.length);
});

test('serializeNQuads: literals round-trip exactly (lone surrogates become U+FFFD)', () => {
  const quads = readBack(serializeNQuads(hostile, GRAPH));
  for (const [i, v] of hostileLiterals.entries()) assert.equal(quads[i].object.value, v.toWellFormed());
  assert.equal(quads[0].graph.value, 'http://example.org/doc%20with%20space');
});

test('serializeNQuads: IRIs with forbidden characters are percent-encoded, others kept as they are', () => {
  const line = serializeNQuads([hostile[5]], GRAPH);
  assert.ok(
    line.startsWith(
      '<http://ex.org/a%20b%3Ec%3Cd%22e%7Bf%7Dg%7Ch%5Ei%60j%5Ck> <http://ex.org/p%01> <http://ex.org/日本#frag> ',
    ),
  );
});

test('serializeNQuads: language tags, datatypes and simple literals in canonical form', () => {
  assert.equal(
    serializeNQuads(hostile.slice(-2), 'http://g'),
    '<http://ex.org/s> <http://ex.org/p> "x"@en-gb <http://g> .\n' +
      '<http://ex.org/s> <http://ex.org/p> "1"^^<http://ex.org/dt%20with%20space> <http://g> .\n',
  );
});

/**
 * The exact bytes serializeNQuads gave before its cached fast path, pinned: published dumps and
 * the SQL fast path depend on them. Runs of one subject, predicate, language and datatype, and
 * every escape.
 */
const pinned = [
  literal('http://ex.org/s', 'http://ex.org/p', 'quote " backslash \\ end\\'),
  literal(
    'http://ex.org/s',
    'http://ex.org/p',
    '\n\r\t\b\f \u0000\u0001\u001f\u007f\u0080 é 日本 😀 \ud800 \udfff.',
  ),
  literal('http://ex.org/s', 'http://ex.org/p', ''),
  literal('http://ex.org/s', 'http://ex.org/p', 'x', 'en-gb'),
  literal('http://ex.org/s', 'http://ex.org/p', 'y', 'en-gb'),
  literal('http://ex.org/s', 'http://ex.org/q', 'z', 'de'),
  literal('http://ex.org/s', 'http://ex.org/q', '1', null, 'http://ex.org/dt with space'),
  literal('http://ex.org/s', 'http://ex.org/q', '2', null, 'http://ex.org/dt with space'),
  literal('http://ex.org/s', 'http://ex.org/q', '3', null, 'http://www.w3.org/2001/XMLSchema#integer'),
  { ...literal('http://ex.org/s', 'http://ex.org/q', 'no datatype'), datatype: null },
  { ...literal('http://ex.org/s', 'http://ex.org/q', 'lang string', 'en'), datatype: RDF_LANG_STRING },
  link(
    'http://ex.org/a b>c<d"e{f}g|h^i`j\\k\u0000\u007f\ud800',
    'http://ex.org/p\u0001',
    'http://ex.org/日本#frag <x>',
  ),
  link('http://ex.org/a b>c<d"e{f}g|h^i`j\\k\u0000\u007f\ud800', 'http://ex.org/p\u0001', '_:b12345678_0'),
  link('_:b12345678_0', 'http://ex.org/ü', '_:b12345678_1'),
  link('_:b12345678_0', 'http://ex.org/ü', 'http://ex.org/o'),
  literal('_:b12345678_0', 'http://ex.org/ü', '"@en ^^<http://x> . <http://y> .'),
  link('http://ex.org/s', 'http://ex.org/p', 'http://ex.org/o'),
  link('http://ex.org/s2', 'http://ex.org/p', 'http://ex.org/o'),
];
const PINNED_GRAPH = ' <http://example.org/doc%20with%20space%00%3E> .\n';
const PINNED_LINES = [
  '<http://ex.org/s> <http://ex.org/p> "quote \\" backslash \\\\ end\\\\"',
  '<http://ex.org/s> <http://ex.org/p> "\\n\\r\\t\\b\\f \\u0000\\u0001\\u001F\\u007F\u0080 \u00e9 \u65e5\u672c \u{1f600} \ufffd \ufffd."',
  '<http://ex.org/s> <http://ex.org/p> ""',
  '<http://ex.org/s> <http://ex.org/p> "x"@en-gb',
  '<http://ex.org/s> <http://ex.org/p> "y"@en-gb',
  '<http://ex.org/s> <http://ex.org/q> "z"@de',
  '<http://ex.org/s> <http://ex.org/q> "1"^^<http://ex.org/dt%20with%20space>',
  '<http://ex.org/s> <http://ex.org/q> "2"^^<http://ex.org/dt%20with%20space>',
  '<http://ex.org/s> <http://ex.org/q> "3"^^<http://www.w3.org/2001/XMLSchema#integer>',
  '<http://ex.org/s> <http://ex.org/q> "no datatype"',
  '<http://ex.org/s> <http://ex.org/q> "lang string"@en',
  '<http://ex.org/a%20b%3Ec%3Cd%22e%7Bf%7Dg%7Ch%5Ei%60j%5Ck%00\u007f\ufffd> <http://ex.org/p%01> <http://ex.org/\u65e5\u672c#frag%20%3Cx%3E>',
  '<http://ex.org/a%20b%3Ec%3Cd%22e%7Bf%7Dg%7Ch%5Ei%60j%5Ck%00\u007f\ufffd> <http://ex.org/p%01> _:b12345678_0',
  '_:b12345678_0 <http://ex.org/\u00fc> _:b12345678_1',
  '_:b12345678_0 <http://ex.org/\u00fc> <http://ex.org/o>',
  '_:b12345678_0 <http://ex.org/\u00fc> "\\"@en ^^<http://x> . <http://y> ."',
  '<http://ex.org/s> <http://ex.org/p> <http://ex.org/o>',
  '<http://ex.org/s2> <http://ex.org/p> <http://ex.org/o>',
];

test('serializeNQuads: the bytes of hostile statements are pinned', () => {
  const expected = PINNED_LINES.map((line) => line + PINNED_GRAPH).join('');
  const actual = serializeNQuads(pinned, 'http://example.org/doc with space\u0000>');
  assert.deepEqual(Buffer.from(actual), Buffer.from(expected));
  // the same, statement by statement: no cached part leaks from one line into the next
  const single = pinned.map((s) => serializeNQuads([s], 'http://example.org/doc with space\u0000>')).join('');
  assert.equal(single, expected);
});

test('createNQuadsWriter: writes every document in order and waits for a full sink', async () => {
  const sink = new PassThrough({ highWaterMark: 16 });
  const chunks: Buffer[] = [];
  const writer = createNQuadsWriter(sink);
  for (let d = 0; d < 20; d++) {
    // nobody reads until later: the writer must wait for drain, not lose or reorder data
    const pending = writer.writeDocument(
      [link(`http://ex.org/s${d}`, 'http://ex.org/p', 'http://ex.org/o')],
      `http://g/${d}`,
    );
    if (d === 0) sink.on('data', (c: Buffer) => chunks.push(c));
    await pending;
  }
  await writer.end();
  const lines = Buffer.concat(chunks).toString().trim().split('\n');
  assert.equal(lines.length, 20);
  assert.equal(lines[19], '<http://ex.org/s19> <http://ex.org/p> <http://ex.org/o> <http://g/19> .');
});
