import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractLinks, parseDocument } from '../../pipeline/rdf/index.ts';
import { sniffFormats } from '../../pipeline/rdf/sniff.ts';

const URL_A = 'http://example.org/a';

function parse(body: string | Buffer, contentType: string | null, documentUrl = URL_A) {
  return parseDocument({
    body: typeof body === 'string' ? Buffer.from(body) : body,
    contentType,
    documentUrl,
  });
}

test('blank-node labels are deterministic per document and unique across documents', async () => {
  const ttl = '<http://ex.org/s> <http://ex.org/p> [ <http://ex.org/q> _:x ] . _:x <http://ex.org/r> "v" .';
  const one = await parse(ttl, 'text/turtle');
  const again = await parse(ttl, 'text/turtle');
  const other = await parse(ttl, 'text/turtle', 'http://example.org/b');
  assert.deepEqual(again.statements, one.statements);
  const labels = (r: typeof one) =>
    new Set(r.statements.flatMap((s) => [s.subject, s.object]).filter((t) => t.startsWith('_:')));
  assert.equal(labels(one).size, 2);
  for (const label of labels(one)) assert.ok(!labels(other).has(label), `${label} shared by two documents`);
});

test('a remote JSON-LD context goes through the injected loader only', async () => {
  const asked: string[] = [];
  const result = await parseDocument({
    body: Buffer.from('{"@context": "https://schema.org/", "@id": "thing", "name": "Thing"}'),
    contentType: 'application/ld+json',
    documentUrl: URL_A,
    loadContext: async (url) => {
      asked.push(url);
      return JSON.stringify({ '@context': { name: 'http://schema.org/name' } });
    },
  });
  assert.deepEqual(asked, ['https://schema.org/']);
  assert.equal(result.error, null);
  assert.deepEqual(result.statements, [
    {
      subject: 'http://example.org/thing',
      predicate: 'http://schema.org/name',
      object: 'Thing',
      objectKind: 'literal',
      datatype: 'http://www.w3.org/2001/XMLSchema#string',
      lang: null,
    },
  ]);
});

test('a failing context loader is a parse error for that document, not a crash', async () => {
  const result = await parseDocument({
    body: Buffer.from('{"@context": "http://example.org/ctx", "@id": "x", "p": 1}'),
    contentType: 'application/ld+json',
    documentUrl: URL_A,
    loadContext: async () => {
      throw new Error('robots.txt disallows it');
    },
  });
  assert.equal(result.error, 'parse');
  assert.match(result.errorMessage ?? '', /robots\.txt disallows it/);
});

test('UTF-16 without a byte-order mark is recognised from the leading "<"', async () => {
  const xml =
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex.org/">' +
    '<rdf:Description rdf:about="http://ex.org/s"><ex:p>Grüße</ex:p></rdf:Description></rdf:RDF>';
  const result = await parse(Buffer.from(xml, 'utf16le'), 'application/rdf+xml');
  assert.equal(result.statements[0]?.object, 'Grüße');
});

test('undeclared legacy bytes that are not UTF-8 decode as windows-1252', async () => {
  const body = Buffer.from('<http://ex.org/s> <http://ex.org/p> "caf\xe9 \x93q\x94" .\n', 'latin1');
  const result = await parse(body, null);
  assert.equal(result.format, 'ntriples');
  assert.equal(result.statements[0]?.object, 'café “q”');
});

test('language tags are lower-cased and repaired or dropped when N-Quads cannot carry them', async () => {
  const html =
    '<html><body><p about="http://ex.org/s"><span property="http://ex.org/a" lang="EN_us">x</span>' +
    '<span property="http://ex.org/b" lang="not a tag!">y</span></p></body></html>';
  const result = await parse(html, 'text/html');
  const byPredicate = Object.fromEntries(result.statements.map((s) => [s.predicate, s]));
  assert.equal(byPredicate['http://ex.org/a'].lang, 'en-us');
  assert.equal(byPredicate['http://ex.org/b'].lang, null);
  assert.equal(byPredicate['http://ex.org/b'].datatype, 'http://www.w3.org/2001/XMLSchema#string');
});

test('N3 formulas are not asserted; the triples around them are', async () => {
  const result = await parse('@prefix : <http://ex.org/> . :a :b :c . { :x :y :z } :saidBy :a .', 'text/n3');
  assert.equal(result.format, 'n3');
  assert.ok(!result.statements.some((s) => s.subject === 'http://ex.org/x'));
  assert.equal(result.statements.length, 2);
});

test('extractLinks: every IRI position, fragments stripped, http(s) only, deduplicated', async () => {
  const result = await parse(
    '@prefix ex: <http://ex.org/v#> . <s#me> ex:p <mailto:x@y.z> , <HTTP://Other.ORG:80/o#f> , "1"^^ex:dt ; ex:q _:b . <s#you> ex:p <s> .',
    'text/turtle',
  );
  assert.deepEqual(extractLinks(result.statements), [
    'http://example.org/s',
    'http://ex.org/v',
    'http://other.org/o',
  ]);
});

test("extractLinks: IRIs inside triple terms (nested, datatypes too) and the publisher's graph names", async () => {
  const turtle = await parse(
    '@prefix ex: <http://ex.org/v#> . <s> ex:p <<( <http://a.org/x> ex:q <<( _:b <http://b.org/y#z> "1"^^<http://c.org/dt> )>> )>> .',
    'text/turtle',
  );
  assert.deepEqual(extractLinks(turtle.statements), [
    'http://example.org/s',
    'http://ex.org/v',
    'http://a.org/x',
    'http://b.org/y',
    'http://c.org/dt',
  ]);
  const trig = await parse(
    '<http://ex.org/s> <http://ex.org/p> "o" <http://g.org/g1#it> .',
    'application/n-quads',
  );
  assert.deepEqual(extractLinks(trig.statements), [
    'http://ex.org/s',
    'http://ex.org/p',
    'http://www.w3.org/2001/XMLSchema',
    'http://g.org/g1',
  ]);
});

const sniffing: Array<[string, string]> = [
  ['<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>', 'rdfxml'],
  ['<!DOCTYPE html><html><body></body></html>', 'rdfa'],
  ['<feed xmlns="http://www.w3.org/2005/Atom"></feed>', 'rdfa'],
  ['  {"@context": {}}', 'jsonld'],
  ['[ a <http://ex.org/C> ] .', 'jsonld'],
  ['# comment\n<http://a/s> <http://a/p> "o"@en .\n', 'ntriples'],
  ['<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n', 'nquads'],
  ['<http://a/s> <http://a/p> <http://a/o> ; <http://a/q> 1 .\n', 'turtle'],
  ['@prefix ex: <http://ex.org/> .', 'turtle'],
];
for (const [text, first] of sniffing) {
  test(`sniffFormats ${JSON.stringify(text.slice(0, 40))} starts with ${first}`, () => {
    assert.equal(sniffFormats(text)[0], first);
  });
}

test('a large N-Triples body: sniffed from its head, read from its bytes, or by n3 when a line is not plain', async () => {
  // multi-byte characters on every line, so that the sniffed head ends inside one
  const lines = Array.from(
    { length: 2000 },
    (_, i) => `<http://ex.org/s${i}> <http://ex.org/p> "Grüße 日本 ${i}"@de .\n`,
  );
  const plain = await parse(lines.join(''), null);
  assert.equal(plain.format, 'ntriples');
  assert.equal(plain.statements.length, 2000);
  assert.equal(plain.statements[1999].object, 'Grüße 日本 1999');
  // a relative IRI at the end: n3 resolves it against the document URL, and reads the rest alike
  const relative = await parse(`${lines.join('')}<rel> <http://ex.org/p> "x" .\n`, 'application/n-triples');
  assert.equal(relative.error, null);
  assert.deepEqual(relative.statements.slice(0, 2000), plain.statements);
  assert.equal(relative.statements[2000].subject, 'http://example.org/rel');
  // not UTF-8: windows-1252, read from the decoded text
  const legacy = await parse(
    Buffer.from(lines.join('').replace(/ 日本/g, ''), 'latin1'),
    'application/n-triples',
  );
  assert.equal(legacy.statements[5].object, 'Grüße 5');
});
