/**
 * W3C JSON-LD 1.1 toRdf tests on which jsonld.js (9.0) returns something that is not a quad
 * (fixtures/w3c-json-ld-api, W3C licence), read through the crawler's own path (parseDocument):
 * a positive test must give exactly its expected statements, a negative one a coded `parse` error
 * without statements, never a crash and never a whole document lost for one malformed quad. And
 * what jsonld.js would drop by default: `@direction`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { canonicalGraph, parseDocument } from '../../pipeline/rdf/index.ts';
import { n3FamilyParser } from '../../pipeline/rdf/parse-n3-family.ts';
import { createStatementBuilder } from '../../pipeline/rdf/statement-builder.ts';
import { bodyEncoding } from '../../pipeline/rdf/text-encoding.ts';

const SUITE = new URL('./fixtures/w3c-json-ld-api/toRdf/', import.meta.url).pathname;
const BASE = 'http://example.com/';

/** The suite's expected N-Quads, read by n3 alone. */
async function expected(file: string) {
  const text = readFileSync(join(SUITE, file), 'utf8');
  const builder = createStatementBuilder(BASE);
  const body = Buffer.from(text);
  const error = await n3FamilyParser('N-Quads')({
    text,
    body,
    encoding: bodyEncoding(body, null),
    baseIri: BASE,
    builder,
    maxContexts: 8,
    mediaType: null,
  });
  assert.equal(error, null);
  return builder.statements;
}

const read = (file: string) =>
  parseDocument({
    body: readFileSync(join(SUITE, file)),
    contentType: 'application/ld+json',
    documentUrl: BASE,
  });

test('toRdf tli14 (a list item jsonld.js gives as a null object): that quad is dropped, the rest kept', async () => {
  const result = await read('li14-in.jsonld');
  assert.equal(result.error, null, result.errorMessage ?? undefined);
  assert.equal(result.format, 'jsonld');
  assert.deepEqual(
    (await canonicalGraph(result.statements)).lines,
    (await canonicalGraph(await expected('li14-out.nq'))).lines,
  );
});

test('toRdf ter54 (a value object with two @type values): refused as invalid JSON-LD, coded, no statements', async () => {
  const result = await read('er54-in.jsonld');
  assert.deepEqual(
    { error: result.error, format: result.format, statements: result.statements.length },
    { error: 'parse', format: 'jsonld', statements: 0 },
  );
  assert.match(result.errorMessage ?? '', /^jsonld: invalid typed value/);
});

test('@direction is kept: with @language as an RDF 1.2 directional literal, alone as its i18n datatype', async () => {
  const body = JSON.stringify({
    '@context': { '@version': 1.1, name: 'http://ex.org/name' },
    '@id': 'http://ex.org/s',
    name: [
      { '@value': 'x', '@language': 'EN-gb', '@direction': 'rtl' },
      { '@value': 'y', '@direction': 'ltr' },
      { '@value': 'z', '@language': 'de' },
    ],
  });
  const result = await parseDocument({
    body: Buffer.from(body),
    contentType: 'application/ld+json',
    documentUrl: BASE,
  });
  assert.equal(result.error, null, result.errorMessage ?? undefined);
  const literal = (value: string) => {
    const { object, datatype, lang, direction } = result.statements.find((s) => s.object === value)!;
    return { object, datatype, lang, direction };
  };
  const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
  assert.deepEqual(literal('x'), {
    object: 'x',
    datatype: `${RDF}dirLangString`,
    lang: 'en-gb',
    direction: 'rtl',
  });
  assert.deepEqual(literal('y'), {
    object: 'y',
    datatype: 'https://www.w3.org/ns/i18n#_ltr',
    lang: null,
    direction: undefined,
  });
  assert.deepEqual(literal('z'), {
    object: 'z',
    datatype: `${RDF}langString`,
    lang: 'de',
    direction: undefined,
  });
});
