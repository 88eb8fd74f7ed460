/**
 * Golden fixtures: every `fixtures/<case>.expected.json` names the body file `<case>.<ext>` beside
 * it and says how it is served and what parsing must give. Counts of valid fixtures are confirmed
 * by an independent parser (`independent`: `serdi:<syntax>` or `rapper:<syntax>`), and our N-Quads
 * output of every fixture must be read back by both serdi and rapper with the same count; output
 * with RDF 1.2 terms (`rdf12`), which neither reads, by n3. `inNamedGraphs` counts the statements
 * that keep the publisher's graph name.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Parser } from 'n3';
import { parseDocument, serializeNQuads } from '../../pipeline/rdf/index.ts';
import { independentCount } from './external-tools.ts';

interface Expected {
  contentType: string | null;
  documentUrl?: string;
  format: string | null;
  statements: number;
  error: string | null;
  independent?: string;
  contains?: string[];
  rdf12?: boolean;
  inNamedGraphs?: number;
}

const dir = new URL('./fixtures/', import.meta.url).pathname;
const files = readdirSync(dir);
const out = mkdtempSync(join(tmpdir(), 'rdf-fixtures-'));

for (const expectedFile of files.filter((f) => f.endsWith('.expected.json')).sort()) {
  const name = expectedFile.slice(0, -'.expected.json'.length);
  const bodyFile = files.find(
    (f) => f !== expectedFile && f.startsWith(`${name}.`) && !f.endsWith('.expected.json'),
  );
  test(`fixture ${name}`, async () => {
    assert.ok(bodyFile, `no body file for ${expectedFile}`);
    const expected = JSON.parse(readFileSync(join(dir, expectedFile), 'utf8')) as Expected;
    const documentUrl = expected.documentUrl ?? `http://example.org/fixtures/${name}`;
    const body = readFileSync(join(dir, bodyFile));
    const result = await parseDocument({ body, contentType: expected.contentType, documentUrl });
    assert.deepEqual(
      { format: result.format, statements: result.statements.length, error: result.error },
      { format: expected.format, statements: expected.statements, error: expected.error },
      result.errorMessage ?? undefined,
    );
    assert.equal(result.errorMessage === null, result.error === null);
    if (expected.independent) {
      const [tool, syntax] = expected.independent.split(':') as ['serdi' | 'rapper', string];
      assert.equal(independentCount(tool, syntax, join(dir, bodyFile), documentUrl), expected.statements);
    }
    assert.equal(
      result.statements.filter((s) => s.sourceGraph !== undefined).length,
      expected.inNamedGraphs ?? 0,
      'statements in named graphs',
    );
    const nquads = serializeNQuads(result.statements, documentUrl);
    for (const line of expected.contains ?? [])
      assert.ok(nquads.includes(line), `missing ${line} in\n${nquads}`);
    if (expected.rdf12) {
      // serd 0.30 and raptor 2.0 read no triple terms (`bad IRI scheme start '<'`): n3 reads it back
      assert.equal(new Parser({ format: 'N-Quads' }).parse(nquads).length, result.statements.length);
    } else if (result.statements.length > 0) {
      const file = join(out, `${name}.nq`);
      writeFileSync(file, nquads);
      assert.equal(independentCount('serdi', 'nquads', file, documentUrl), result.statements.length);
      assert.equal(independentCount('rapper', 'nquads', file, documentUrl), result.statements.length);
    }
  });
}
