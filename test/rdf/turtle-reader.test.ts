/**
 * The Turtle reader against n3, the parser of record: on the W3C RDF 1.1 Turtle test suite
 * (fixtures/w3c-rdf-tests/rdf-turtle, W3C test-suite licence), on the simulated Web's Turtle, on
 * the parse bench's shapes, on hostile documents and on thousands of mutated documents, whatever
 * the reader accepts must be exactly what n3 gives (same statements in the same order, no error),
 * and the adapter must give what n3 gives on everything.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Parser } from 'n3';
import { canonicalGraph } from '../../pipeline/rdf/index.ts';
import { turtleParser } from '../../pipeline/rdf/parse-line-formats.ts';
import { n3FamilyParser } from '../../pipeline/rdf/parse-n3-family.ts';
import { createStatementBuilder } from '../../pipeline/rdf/statement-builder.ts';
import type { SyntaxParser } from '../../pipeline/rdf/syntax-parser.ts';
import { bodyEncoding } from '../../pipeline/rdf/text-encoding.ts';
import { readTurtle } from '../../pipeline/rdf/turtle-reader.ts';
import { documentState } from '../../pipeline/simweb/document-state.ts';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import { documentGraph } from '../../pipeline/simweb/graph.ts';
import { generateWeb } from '../../pipeline/simweb/index.ts';
import { fixtureBody } from '../../pipeline/simweb/scenario-content.ts';
import { serialize } from '../../pipeline/simweb/serialize.ts';

const BASE = 'http://example.org/dir/doc';
const SUITE = new URL('./fixtures/w3c-rdf-tests/rdf-turtle/', import.meta.url).pathname;
const SUITE_BASE = 'https://w3c.github.io/rdf-tests/rdf/rdf11/rdf-turtle/';
const n3 = n3FamilyParser('Turtle');
const ours = turtleParser();

async function run(parser: SyntaxParser, text: string, base = BASE) {
  const builder = createStatementBuilder(base);
  const body = Buffer.from(text);
  const error = await parser({
    text,
    body,
    encoding: bodyEncoding(body, null),
    baseIri: base,
    builder,
    maxContexts: 8,
    mediaType: 'text/turtle',
  });
  return { statements: builder.statements, error };
}

/** What the reader reads; null when unsure. */
function fast(text: string, base = BASE) {
  const builder = createStatementBuilder(base);
  return readTurtle(Buffer.from(text), base, builder) ? builder.statements : null;
}

/** The reader, when it reads the text, agrees with n3; the adapter always does. Whether it read it. */
async function agrees(text: string, label: string, base = BASE): Promise<boolean> {
  const expected = await run(n3, text, base);
  assert.deepEqual(await run(ours, text, base), expected, `adapter: ${label}`);
  const statements = fast(text, base);
  if (statements === null) return false;
  assert.deepEqual({ statements, error: null }, expected, `reader: ${label}`);
  return true;
}

const RDFT = 'http://www.w3.org/ns/rdftest#';
const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';

/** The suite's tests from its manifest: kind (rdft type without prefix), input file, result file. */
function manifest(): { kind: string; action: string; result: string | null }[] {
  const quads = new Parser({ baseIRI: SUITE_BASE }).parse(readFileSync(join(SUITE, 'manifest.ttl'), 'utf8'));
  const about = (s: string, p: string) => quads.find((q) => q.subject.value === s && q.predicate.value === p);
  return quads
    .filter((q) => q.predicate.value.endsWith('#type') && q.object.value.startsWith(RDFT))
    .map((q) => ({
      kind: q.object.value.slice(RDFT.length),
      action: about(q.subject.value, `${MF}action`)!.object.value.slice(SUITE_BASE.length),
      result: about(q.subject.value, `${MF}result`)?.object.value.slice(SUITE_BASE.length) ?? null,
    }));
}

test('W3C Turtle suite: evaluation results, refusals, and the reader agrees with n3 wherever it reads', async () => {
  const tests = manifest();
  assert.ok(tests.length >= 290, `${tests.length} tests`);
  const read: Record<string, number> = {};
  for (const { kind, action, result } of tests) {
    const text = readFileSync(join(SUITE, action), 'utf8');
    const base = SUITE_BASE + action;
    if (await agrees(text, action, base)) read[kind] = (read[kind] ?? 0) + 1;
    const got = await run(ours, text, base);
    if (kind === 'TestTurtleNegativeSyntax' || kind === 'TestTurtleNegativeEval') {
      assert.notEqual(got.error, null, `${action} must be refused`);
      assert.equal(fast(text, base), null, `${action}: the reader must not accept it`);
    } else assert.equal(got.error, null, `${action}: ${got.error}`);
    if (kind === 'TestTurtleEval') {
      const nt = readFileSync(join(SUITE, result!), 'utf8');
      const expected = await run(n3FamilyParser('N-Triples'), nt, base);
      assert.equal(expected.error, null);
      assert.deepEqual(
        (await canonicalGraph(got.statements)).lines,
        (await canonicalGraph(expected.statements)).lines,
        action,
      );
    }
  }
  // most of the suite is in the form the reader reads: the fast path is what it exercises
  assert.ok((read.TestTurtleEval ?? 0) >= 90, JSON.stringify(read));
  assert.ok((read.TestTurtlePositiveSyntax ?? 0) >= 40, JSON.stringify(read));
});

test('the reader reads the usual forms, in n3 order, collections and nested property lists included', async () => {
  const text = `@prefix ex: <http://example.org/> .
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
@base <http://example.org/base/> .
ex:s a foaf:Person ; foaf:name "Bob"@en-GB, 'B\\u00e9' ; ex:n 1, -1.5, 1.e3, +.5E-2, true, false ;;
  ex:l ( 1 [ ex:p ex:o ] ( ex:a ) () "x"@en ) ; ex:b [ ex:q """long "quoted"
text""", '''x'y''' ; ex:r [] ] ; ex:esc ex:a\\,b%20c.d ; ex:e ex: . # comment
<rel> <#frag> _:x.y , _:z . [ ex:p ( ) ] . [ ex:q [] ] . ( ex:a ) ex:p "v"^^ex:dt .
[] ex:p <../up> .
_:z ex:last "1"^^<http://www.w3.org/2001/XMLSchema#integer>.`;
  assert.ok(await agrees(text, 'usual forms'));
  const statements = fast(text)!;
  assert.ok(statements.some((s) => s.object === 'http://example.org/a,b%20c.d'));
  assert.ok(statements.some((s) => s.subject === 'http://example.org/base/rel'));
  assert.ok(statements.some((s) => s.object === 'http://example.org/up'));
});

/** The parse bench's Turtle (test/bench/parse.bench.ts). */
function benchTurtle(count: number): string {
  const lines = [
    '@prefix ex: <http://example.org/resource/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n',
    '@prefix dct: <http://purl.org/dc/terms/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n',
  ];
  for (let i = 0; i < count; i++) {
    lines.push(
      `ex:${i} foaf:name "Name número ${i}"@en ;\n  foaf:knows ex:${i + 1} ;\n`,
      `  dct:title "A \\"title\\" ${i}" ;\n  ex:value [ ex:n "${i}"^^xsd:integer ] .\n`,
    );
  }
  return lines.join('');
}

test("the parse bench's Turtle is read by the reader (the fast path is taken), as n3 reads it", async () => {
  const text = benchTurtle(2000);
  assert.equal(fast(text)?.length, 10_000);
  assert.ok(await agrees(text, 'bench'));
});

test("the simulated Web's Turtle: read by the reader, as n3 reads it", async () => {
  const web = generateWeb({ seed: 7, docs: 3000, plds: 100 });
  const version = { real: 2, all: 3, stampedAt: Date.UTC(2026, 1, 1), modifiedAt: Date.UTC(2026, 1, 1) };
  let read = 0;
  let documents = 0;
  for (let d = 0; d < web.docCount; d += 37) {
    const state = documentState(web, d);
    const { docUrl } = docAddress(web, d);
    const body = serialize(documentGraph(web, state, version), 'turtle', docUrl).body.toString();
    documents++;
    if (await agrees(body, docUrl, docUrl)) read++;
  }
  const fixture = fixtureBody('http://www.formats-lab.org/x', 'turtle').toString();
  assert.ok(await agrees(fixture, 'scenario fixture', 'http://www.formats-lab.org/x'));
  assert.equal(read, documents);
});

test('hostile documents: deep nesting, huge literals, one odd construct at the end', async () => {
  const P = '@prefix ex: <http://example.org/> .\n';
  const deep = `${P}ex:s ex:p ${'[ ex:p '.repeat(20_000)}ex:o${' ]'.repeat(20_000)} .\n`;
  assert.ok(fast(deep) === null, 'nesting past the bound goes to n3');
  await agrees(deep, 'deep [');
  const deepList = `${P}ex:s ex:p ${'( '.repeat(20_000)}${' )'.repeat(20_000)} .\n`;
  assert.ok(fast(deepList) === null);
  await agrees(deepList, 'deep (');
  const shallow = `${P}ex:s ex:p ${'[ ex:p '.repeat(50)}ex:o${' ]'.repeat(50)} .\n`;
  assert.ok(await agrees(shallow, 'nesting within the bound'));

  const huge = `${P}ex:s ex:p "${'x\\"é'.repeat(1_000_000)}" , """${'y\n'.repeat(1_000_000)}""" .\n`;
  assert.ok(await agrees(huge, 'huge literals'));

  const plain = benchTurtle(2000);
  for (const odd of [
    'ex:s ex:p << ex:a ex:b ex:c >> .',
    'ex:s ex:p ex:o {| ex:q ex:r |} .',
    'ex:s ex:p "x"@en--ltr .',
    'ex:s ex:p "x"@version .',
    'ex:s ex:p "x"@VERSION .',
    'ex:s ex:p <http://example.org/\\u0041> .',
    'ex:s ex:p ex:a\u00a0.',
    '_:a.😀b ex:p ex:o .',
    '@prefix true\ufeff: <http://x/> .\nex:s ex:p true\ufeff:x .',
    'ex:s a\u1680ex:p ex:o .',
    'ex:s ex:p ex:o',
    'ex:s ex:p ex:o ; .\nex:t ex:p undeclared:x .',
    'VERSION "1.2"\nex:s ex:p ex:o .',
    'ex:s ex:p "unterminated .',
    'GRAPH ex:g { ex:s ex:p ex:o }',
  ]) {
    const text = `${plain}${odd}\n`;
    assert.ok(fast(text) === null, odd);
    const expected = await run(n3, text);
    assert.deepEqual(await run(ours, text), expected, odd);
  }
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

const HEAD = '@prefix ex: <http://a/> .\nPREFIX : <http://b/#>\n';
const SEEDS = [
  '@prefix ex: <http://a/> .',
  '@base <http://c/d/e> .',
  'ex:s ex:p ex:o .',
  ':s a :C ; :p "v\\u00e9\\n"@en-gb , \'w\' ; :q 1.5 .',
  '<s> <p> <../o> , <#f> .',
  '_:a.b ex:p _:c ; ex:q [ ex:r ( 1 -2 +.3e4 true ) ] .',
  '[ ex:p [] ] ex:q ( ( ) ( ex:x ) [ ] ) .',
  'ex:s ex:p """a\n"b"""" , \'\'\'c\'\'\' .',
  'ex:s ex:p "d"^^ex:t , "e"^^<http://a/t> ; ex:r ex:a\\.b%41.',
  'ex:s ex:p false.',
];
const INSERTS = [
  '<',
  '>',
  '"',
  "'",
  '\\',
  '_',
  ':',
  '.',
  '@',
  '^',
  '#',
  ' ',
  '\n',
  '\r',
  '[',
  ']',
  '(',
  ')',
  ',',
  ';',
  'é',
  '·',
  '\u0300',
  '\u037e',
  '×',
  '😀',
  '\u00a0',
  '\u1680',
  '\ufeff',
  'a',
  'e',
  '-',
  '+',
  '9',
  '%',
  'true',
  '"""',
  'PREFIX',
  '@prefix',
];

/** A random Turtle document in the form the reader reads, nested `[` and `(` included. */
function generated(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const gap = () => pick([' ', ' ', '\n  ', '\t', ' # note\n', '']);
  const space = () => pick([' ', '\n', ' # c\n  ', '\t']);
  const name = () =>
    pick([
      'ex:a',
      'ex:b1',
      ':c',
      'ex:d.e',
      'ex:f\\,g',
      'ex:h%20',
      'ex:',
      'ex:_x',
      'ex:1',
      'ex:a:b',
      'ex:a-b',
      'ex:Zürich',
      'ex:a·b',
      ':日本',
      'ex:x\u0300',
      'é.ü:x',
      'ex:😀',
    ]);
  const iri = () => pick(['<http://a/x>', '<y>', '<#z>', '<../w>', '<//h/p>', '<?q>', '<>']);
  const literal = () => {
    const body = pick(['v', 'é\\"\\n', '\\u00e9\\U0001F600', '', "it\\'s"]);
    const quoted = pick([`"${body}"`, `'${body}'`, `"""${body}\n"x"y"""`, `'''${body}'''`]);
    return quoted + pick(['', '', '@en', '@en-GB', '^^ex:t', '^^<http://a/t>', '^^<t>']);
  };
  const term = () =>
    pick([
      '_:b1',
      '_:b.2',
      '_:x-y',
      '_:ü1',
      '_:x·y',
      '_:x😀.y',
      '1',
      '-2.5',
      '+.5e3',
      '1.E-2',
      'true',
      'false',
    ]);
  const object = (depth: number): string => {
    const r = next();
    if (depth < 3 && r < 0.15) return `[${gap()}${pairs(depth + 1)}${gap()}]`;
    if (depth < 3 && r < 0.3) {
      const items = Array.from({ length: Math.floor(next() * 4) }, () => space() + object(depth + 1));
      return `(${items.join('')}${gap()})`;
    }
    if (r < 0.35) return '[]';
    return pick([name, iri, literal, term])();
  };
  const objects = (depth: number) =>
    Array.from({ length: 1 + Math.floor(next() * 3) }, () => object(depth)).join(`${gap()},${gap()}`);
  const pairs = (depth: number): string => {
    const list = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
      return `${pick(['a', name(), iri()])}${space()}${objects(depth)}`;
    });
    return list.join(`${gap()}${pick([';', ';', '; ;'])}${gap()}`) + pick(['', '', ' ;']);
  };
  const statement = () => {
    const r = next();
    if (r < 0.05) {
      return pick([
        '@prefix ex: <http://a/b#> .',
        'PREFIX ex: <http://c/>',
        '@base <http://d/e/f> .',
        'BASE <g/>',
      ]);
    }
    if (r < 0.15) return `[${gap()}${pairs(1)}${gap()}]${gap()}${pick(['', pairs(0)])}${gap()}.`;
    if (r < 0.25)
      return `(${space()}${object(1)}${space()}${object(1)}${gap()})${space()}${pairs(0)}${gap()}.`;
    return `${pick([name(), iri(), '_:s1', '[]'])}${space()}${pairs(0)}${gap()}.`;
  };
  const head =
    '@prefix ex: <http://example.org/ns#> .\nPREFIX : <http://example.org/empty#>\n@prefix é.ü: <http://e/> .\n';
  return head + Array.from({ length: 1 + Math.floor(next() * 6) }, statement).join('\n');
}

test('generated documents: the reader reads them and gives exactly what n3 gives', async () => {
  const next = random(16);
  let read = 0;
  for (let i = 0; i < 3000; i++) if (await agrees(generated(next), `generated #${i}`)) read++;
  assert.ok(read > 2700, `only ${read} of 3000 generated documents read by the reader`);
});

/** `text` with up to `most` random deletions, insertions and doublings. */
function mutate(text: string, most: number, next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  for (let m = 1 + Math.floor(next() * most); m > 0; m--) {
    const at = Math.floor(next() * (text.length + 1));
    const kind = next();
    if (kind < 0.4) text = text.slice(0, at) + text.slice(at + 1);
    else if (kind < 0.8) text = text.slice(0, at) + pick(INSERTS) + text.slice(at);
    else text = text.slice(0, at) + text.slice(at, at + 1) + text.slice(at);
  }
  // a decoded body has no lone surrogates, which a cut through a pair would leave
  return text.toWellFormed();
}

test('mutated documents: whatever the reader accepts, n3 reads the same', async () => {
  const next = random(14);
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const statements = Array.from(
      { length: 1 + Math.floor(next() * 4) },
      () => SEEDS[Math.floor(next() * SEEDS.length)],
    );
    const text = mutate(HEAD + statements.join('\n'), 3, next);
    if (await agrees(text, JSON.stringify(text))) accepted++;
  }
  assert.ok(accepted > 3000, `only ${accepted} mutated documents read by the reader`);
});

test('mutated W3C test files: whatever the reader accepts, n3 reads the same', async () => {
  const next = random(15);
  let accepted = 0;
  for (const { kind, action } of manifest()) {
    if (kind !== 'TestTurtleEval' && kind !== 'TestTurtlePositiveSyntax') continue;
    const text = readFileSync(join(SUITE, action), 'utf8');
    for (let i = 0; i < 20; i++) {
      const mutated = mutate(text, 2, next);
      if (await agrees(mutated, `${action}: ${JSON.stringify(mutated)}`, SUITE_BASE + action)) accepted++;
    }
  }
  assert.ok(accepted > 1000, `only ${accepted} mutated documents read by the reader`);
});
