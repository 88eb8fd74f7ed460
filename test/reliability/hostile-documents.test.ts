import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParseResult } from '../../pipeline/core/index.ts';
import { graphHash, parseDocument, readDocument, serializeNQuads } from '../../pipeline/rdf/index.ts';

/** Hostile bodies straight into the parsers: each gets a vocabulary error or a bounded result, never a crash. */
const URL_ = 'http://hostile.example.org/doc';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

function parse(body: string | Buffer, contentType: string | null): Promise<ParseResult> {
  return parseDocument({ body: Buffer.from(body), contentType, documentUrl: URL_ });
}

/** The longest term value in a result: what an entity expansion would blow up. */
function longestTerm(result: ParseResult): number {
  let most = 0;
  for (const s of result.statements) {
    for (const t of [s.subject, s.predicate, s.object]) most = Math.max(most, t.length);
  }
  return most;
}

const laughs = (() => {
  const entities = ['<!ENTITY l0 "lol">'];
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ ${entities.join('\n')} ]>
<rdf:RDF xmlns:rdf="${RDF}" xmlns:ex="http://ex.org/">
  <rdf:Description rdf:about="http://ex.org/s"><ex:p>&l9;</ex:p></rdf:Description>
</rdf:RDF>`;
})();

const externalEntity = (system: string) => `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY xxe SYSTEM "${system}"> ]>
<rdf:RDF xmlns:rdf="${RDF}" xmlns:ex="http://ex.org/">
  <rdf:Description rdf:about="http://ex.org/s"><ex:p>&xxe;</ex:p></rdf:Description>
</rdf:RDF>`;

test('RDF/XML entity expansion (billion laughs) is not expanded', async () => {
  for (const type of ['application/rdf+xml', null, 'application/xhtml+xml']) {
    const result = await parse(laughs, type);
    assert.ok(longestTerm(result) < 1000, `${type}: longest term ${longestTerm(result)}`);
    assert.ok(result.error === null || ['parse', 'not_rdf'].includes(result.error), String(result.error));
  }
});

test('external entities (file and http) are never read or fetched', async () => {
  for (const system of ['file:///etc/passwd', 'file:///etc/hostname', 'http://127.0.0.1:9/xxe']) {
    for (const type of ['application/rdf+xml', 'application/xhtml+xml', 'text/html']) {
      const result = await parse(externalEntity(system), type);
      const text = result.statements.map((s) => s.object).join('\n');
      assert.doesNotMatch(text, /root:|localhost/, `${system} as ${type}`);
      assert.ok(result.error === null || ['parse', 'not_rdf'].includes(result.error), String(result.error));
    }
  }
});

test('deep nesting in every nesting syntax is an error or a result, not a stack overflow', async () => {
  const n = 20_000;
  const cases: [string, string, string | null][] = [
    ['JSON arrays', `${'['.repeat(n)}${']'.repeat(n)}`, 'application/ld+json'],
    ['JSON-LD objects', `${'{"http://ex.org/p":'.repeat(n)}"x"${'}'.repeat(n)}`, 'application/ld+json'],
    [
      'JSON-LD just under the bound',
      `${'{"http://ex.org/p":'.repeat(200)}"x"${'}'.repeat(200)}`,
      'application/ld+json',
    ],
    [
      'RDF/XML striped elements',
      `<rdf:RDF xmlns:rdf="${RDF}" xmlns:ex="http://ex.org/">${'<rdf:Description><ex:p>'.repeat(n)}x${'</ex:p></rdf:Description>'.repeat(n)}</rdf:RDF>`,
      'application/rdf+xml',
    ],
    [
      'XHTML divs',
      `<html><body>${'<div property="http://ex.org/p">'.repeat(n)}x${'</div>'.repeat(n)}</body></html>`,
      'text/html',
    ],
    [
      'Turtle blank nodes',
      `<http://ex.org/s> <http://ex.org/p> ${'[ <http://ex.org/p> '.repeat(n)}1${' ]'.repeat(n)} .`,
      'text/turtle',
    ],
    [
      'Turtle lists',
      `<http://ex.org/s> <http://ex.org/p> ${'( '.repeat(n)}1${' )'.repeat(n)} .`,
      'text/turtle',
    ],
    ['N3 formulas', `${'{ '.repeat(n)}<http://ex.org/s> <http://ex.org/p> 1 ${'} '.repeat(n)}.`, 'text/n3'],
    ['TriG graphs (unbalanced)', `${'<http://g> { '.repeat(n)}`, 'application/trig'],
  ];
  for (const [name, body, type] of cases) {
    const result = await parse(body, type);
    assert.ok(
      result.error === null || ['parse', 'not_rdf', 'too_complex'].includes(result.error),
      `${name}: ${result.error} ${result.errorMessage}`,
    );
    await graphHash(result.statements);
  }
});

/**
 * `<div></b>` nests one deeper each time for the HTML parser (an end tag matching no open element
 * is ignored), while a guard that subtracted one per end tag saw depth 1: 900 KB ran for 102 s.
 * Each body here is far past the bound in the parser's own count, so a guard that counts the way
 * the parser does refuses them before the parser runs (an unfixed guard lets them run for hours).
 */
test('stray end tags do not hide nesting from the depth guard', async () => {
  const n = 200_000;
  const rdfa = '<div property="http://ex.org/p">x</div>';
  const cases: [string, string, string | null][] = [
    ['HTML', `<html><body>${rdfa}${'<div></b>'.repeat(n)}</body></html>`, 'text/html'],
    [
      'XHTML',
      `<html xmlns="http://www.w3.org/1999/xhtml"><body>${rdfa}${'<div></b>'.repeat(n)}</body></html>`,
      'application/xhtml+xml',
    ],
    [
      'unclosed p and an unmatched end tag',
      `<html><body>${rdfa}${'<span></p>'.repeat(n)}</body></html>`,
      'text/html',
    ],
    [
      'RDF/XML falling back to RDFa',
      `<rdf:RDF xmlns:rdf="${RDF}">${'<rdf:Description></b>'.repeat(n)}</rdf:RDF>`,
      'application/rdf+xml',
    ],
  ];
  for (const [name, body, type] of cases) {
    const result = await parse(body, type);
    assert.equal(result.error, 'too_complex', `${name}: ${result.error} ${result.errorMessage}`);
  }
});

test('end tags the HTML parser implies keep real pages under the depth guard', async () => {
  const n = 20_000;
  const item = '<li property="http://ex.org/p">x';
  const pages: [string, string][] = [
    ['unclosed list items', `<html><body><ul>${item.repeat(n)}</ul></body></html>`],
    ['unclosed paragraphs', `<html><body>${'<p property="http://ex.org/p">x'.repeat(n)}</body></html>`],
    [
      'table cells and rows',
      `<html><body><table>${'<tr><td property="http://ex.org/p">x<td>y'.repeat(n)}</table></body></html>`,
    ],
    [
      'markup inside script',
      `<html><body><script>${'<div>'.repeat(n)}</script><p property="http://ex.org/p">x</p></body></html>`,
    ],
  ];
  for (const [name, body] of pages) {
    const result = await parse(body, 'text/html');
    assert.equal(result.error, null, `${name}: ${result.errorMessage}`);
  }
});

/**
 * Nesting just under the HTML bound followed by stray end tags: every `</b>` makes the HTML parser
 * search 4,000 open elements, about 10 µs of CPU here, so 3 million of them need some 30 s, 60 times
 * the budget given. The worker running the parser never yields; only terminating it stops it.
 */
test('a document that needs more CPU than its budget is stopped as too_complex', async () => {
  const body = Buffer.from(
    `<html><body>${'<div>'.repeat(4000)}<span property="http://ex.org/p">x</span>${'</b>'.repeat(3_000_000)}</body></html>`,
  );
  const result = await readDocument(
    { body, contentType: 'text/html', documentUrl: URL_ },
    { cpuBudgetMs: 500, maxContexts: 8, heapMb: 256 },
  );
  assert.equal(result.error, 'too_complex', String(result.errorMessage));
  assert.match(String(result.errorMessage), /CPU/);
  // the pool replaced the terminated worker: the next document is read as usual
  const next = await readDocument(
    {
      body: Buffer.from('<http://ex.org/s> <http://ex.org/p> "o" .'),
      contentType: 'text/turtle',
      documentUrl: URL_,
    },
    { cpuBudgetMs: 60_000, maxContexts: 8, heapMb: 256 },
  );
  assert.equal(next.error, null);
  assert.equal(next.statements.length, 1);
});

test('gigantic literals and IRIs parse, hash and serialise whole', async () => {
  const big = 'x'.repeat(8 * 1024 * 1024);
  const cases: [string, string, string][] = [
    ['Turtle literal', `<http://ex.org/s> <http://ex.org/p> "${big}" .`, 'text/turtle'],
    ['Turtle long literal', `<http://ex.org/s> <http://ex.org/p> """${big}""" .`, 'text/turtle'],
    [
      'N-Triples IRI',
      `<http://ex.org/s> <http://ex.org/p> <http://ex.org/${big}> .`,
      'application/n-triples',
    ],
    [
      'JSON-LD literal',
      JSON.stringify({ '@id': 'http://ex.org/s', 'http://ex.org/p': big }),
      'application/ld+json',
    ],
    [
      'RDF/XML literal',
      `<rdf:RDF xmlns:rdf="${RDF}" xmlns:ex="http://ex.org/"><rdf:Description rdf:about="http://ex.org/s"><ex:p>${big}</ex:p></rdf:Description></rdf:RDF>`,
      'application/rdf+xml',
    ],
  ];
  for (const [name, body, type] of cases) {
    const result = await parse(body, type);
    assert.equal(result.error, null, `${name}: ${result.errorMessage}`);
    assert.equal(result.statements.length, 1, name);
    assert.ok(longestTerm(result) >= big.length, name);
    assert.match(await graphHash(result.statements), /^exact:/);
    assert.ok(serializeNQuads(result.statements, URL_).length > big.length, name);
  }
});
