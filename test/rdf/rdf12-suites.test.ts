/**
 * The W3C RDF 1.2 Turtle, TriG and RDF/XML test suites (fixtures/w3c-rdf-tests/rdf12-*, W3C
 * test-suite licence) through the crawler's own reading path: every evaluation test must keep every
 * statement its expected result holds, triple terms, reifiers, annotations, base directions and
 * named graphs included (isomorphic, by our canonical lines, and as many as n3 alone reads from the
 * expected file); our N-Quads output of it must be read back by n3 with as many quads; positive
 * syntax tests must keep every statement n3 alone reads; negative ones must be refused by the
 * syntax's adapter.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Parser } from 'n3';
import type { RdfFormat, Statement } from '../../pipeline/core/index.ts';
import { canonicalGraph, parseDocument, serializeNQuads } from '../../pipeline/rdf/index.ts';
import { n3FamilyParser } from '../../pipeline/rdf/parse-n3-family.ts';
import { createStatementBuilder } from '../../pipeline/rdf/statement-builder.ts';
import { SYNTAX_PARSERS } from '../../pipeline/rdf/syntax-parsers.ts';
import { bodyEncoding } from '../../pipeline/rdf/text-encoding.ts';

const FIXTURES = new URL('./fixtures/w3c-rdf-tests/', import.meta.url).pathname;
const RDFT = 'http://www.w3.org/ns/rdftest#';
const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';

interface Suite {
  readonly dir: string;
  readonly format: RdfFormat;
  readonly contentType: string;
  /** n3's name of the syntax of the expected results. */
  readonly results: 'N-Triples' | 'N-Quads';
}

const SUITES: readonly Suite[] = [
  { dir: 'rdf12-turtle', format: 'turtle', contentType: 'text/turtle', results: 'N-Triples' },
  { dir: 'rdf12-trig', format: 'trig', contentType: 'application/trig', results: 'N-Quads' },
  { dir: 'rdf12-xml', format: 'rdfxml', contentType: 'application/rdf+xml', results: 'N-Triples' },
];

interface Entry {
  readonly kind: string;
  readonly folder: string;
  readonly action: string;
  readonly result: string | null;
  readonly base: string;
}

/** The tests of a suite's manifests (eval/, syntax/): kind (rdft type without prefix), files, base. */
function entries(suite: Suite): Entry[] {
  const found: Entry[] = [];
  for (const folder of ['eval', 'syntax']) {
    let text: string;
    try {
      text = readFileSync(join(FIXTURES, suite.dir, folder, 'manifest.ttl'), 'utf8');
    } catch {
      continue;
    }
    const base = `https://w3c.github.io/rdf-tests/rdf/rdf12/rdf-${suite.dir.slice('rdf12-'.length)}/${folder}/`;
    const quads = new Parser({ baseIRI: base }).parse(text);
    const about = (s: string, p: string) =>
      quads.find((q) => q.subject.value === s && q.predicate.value === p);
    for (const q of quads) {
      if (!q.predicate.value.endsWith('#type') || !q.object.value.startsWith(RDFT)) continue;
      const action = about(q.subject.value, `${MF}action`)!.object.value.slice(base.length);
      const result = about(q.subject.value, `${MF}result`)?.object.value.slice(base.length) ?? null;
      found.push({ kind: q.object.value.slice(RDFT.length), folder, action, result, base: base + action });
    }
  }
  return found;
}

/** n3 alone, without our statement builder: the quads a file holds. */
function n3Quads(text: string, format: string, base: string) {
  return new Parser({ format, baseIRI: base }).parse(text);
}

/** A text through one of our syntax adapters (n3's for the expected results). */
async function adapter(format: RdfFormat | 'N-Triples' | 'N-Quads', text: string, base: string) {
  const builder = createStatementBuilder(base);
  const body = Buffer.from(text);
  const parse =
    format === 'N-Triples' || format === 'N-Quads' ? n3FamilyParser(format) : SYNTAX_PARSERS[format];
  const error = await parse({
    text,
    body,
    encoding: bodyEncoding(body, null),
    baseIri: base,
    builder,
    maxContexts: 8,
    mediaType: null,
  });
  return { statements: builder.statements, error };
}

/** The statements without the publisher's graph names (what data.nq.gz read back gives as sourceGraph). */
const triplesOf = (statements: readonly Statement[]) =>
  statements.map(({ sourceGraph: _, ...triple }) => triple);

for (const suite of SUITES) {
  test(`W3C ${suite.dir}: every evaluation test keeps every statement, through parseDocument and N-Quads`, async (t) => {
    const tests = entries(suite).filter((e) => e.result !== null);
    assert.ok(tests.length >= 25, `${tests.length} evaluation tests`);
    const lost: string[] = [];
    for (const { action, result, folder, base } of tests) {
      const read = await parseDocument({
        body: readFileSync(join(FIXTURES, suite.dir, folder, action)),
        contentType: suite.contentType,
        documentUrl: base,
      });
      assert.equal(read.error, null, `${action}: ${read.errorMessage}`);
      const expectedText = readFileSync(join(FIXTURES, suite.dir, folder, result!), 'utf8');
      const expected = await adapter(suite.results, expectedText, base);
      assert.equal(expected.error, null, result!);
      const ours = (await canonicalGraph(read.statements)).lines;
      // as many statements as n3 alone reads from the expected file, and the same graph
      assert.equal(ours.length, n3Quads(expectedText, suite.results, base).length, action);
      if (ours.join('\n') !== (await canonicalGraph(expected.statements)).lines.join('\n')) lost.push(action);
      // data.nq.gz: every statement in the document's graph, read back by n3 as N-Quads 1.2
      const nquads = serializeNQuads(read.statements, base);
      assert.equal(n3Quads(nquads, 'N-Quads', base).length, read.statements.length, `${action} N-Quads`);
      const back = await adapter('N-Quads', nquads, base);
      assert.deepEqual(
        (await canonicalGraph(triplesOf(back.statements))).lines,
        (await canonicalGraph(triplesOf(read.statements))).lines,
        `${action} read back`,
      );
    }
    t.diagnostic(`${suite.dir}: statements kept in ${tests.length - lost.length} of ${tests.length} tests`);
    assert.deepEqual(lost, []);
  });

  test(`W3C ${suite.dir}: positive syntax tests keep what n3 reads, negative ones are refused`, async () => {
    const tests = entries(suite).filter((e) => e.result === null);
    for (const { kind, action, folder, base } of tests) {
      const text = readFileSync(join(FIXTURES, suite.dir, folder, action), 'utf8');
      const got = await adapter(suite.format, text, base);
      if (/Negative/.test(kind)) {
        assert.notEqual(got.error, null, `${action} must be refused`);
        continue;
      }
      assert.equal(got.error, null, `${action}: ${got.error}`);
      const n3Format = suite.format === 'trig' ? 'TriG' : 'Turtle';
      assert.equal(got.statements.length, n3Quads(text, n3Format, base).length, action);
    }
  });
}
