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
