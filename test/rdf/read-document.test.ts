import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  graphHash,
  parseDocument,
  parseWorkersStarted,
  readDocument,
  releaseParseWorkers,
  serializeNQuads,
} from '../../pipeline/rdf/index.ts';
import { decodeStatements, encodeStatements } from '../../pipeline/rdf/statement-wire.ts';

const dir = new URL('./fixtures/', import.meta.url).pathname;
const LIMITS = { cpuBudgetMs: 60_000, maxContexts: 8, heapMb: 256 };

/** Every fixture body with the type it is served as. */
function fixtures(): { name: string; body: Buffer; contentType: string | null }[] {
  const files = readdirSync(dir);
  return files
    .filter((f) => f.endsWith('.expected.json'))
    .map((f) => {
      const name = f.slice(0, -'.expected.json'.length);
      const bodyFile = files.find(
        (g) => g !== f && g.startsWith(`${name}.`) && !g.endsWith('.expected.json'),
      )!;
      const { contentType } = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        contentType: string | null;
      };
      return { name, body: readFileSync(join(dir, bodyFile)), contentType };
    });
}

test('a parse worker reads every fixture exactly as parseDocument and graphHash do', async () => {
  for (const { name, body, contentType } of fixtures()) {
    const documentUrl = `http://example.org/fixtures/${name}`;
    const inThread = await parseDocument({ body, contentType, documentUrl });
    const worker = await readDocument({ body, contentType, documentUrl }, LIMITS);
    assert.deepEqual(worker.statements, inThread.statements, name);
    assert.deepEqual(
      [worker.format, worker.error, worker.errorMessage],
      [inThread.format, inThread.error, inThread.errorMessage],
      name,
    );
    assert.equal(
      worker.graphHash,
      inThread.statements.length > 0 ? await graphHash(inThread.statements) : null,
      name,
    );
  }
});

const XSD = 'http://www.w3.org/2001/XMLSchema#string';

test('packed statements unpack to the same statements, whatever the string chunks', async () => {
  const statements = (
    await Promise.all(
      fixtures().map(
        async ({ name, body, contentType }) =>
          (
            await parseDocument({ body, contentType, documentUrl: `http://example.org/${name}` })
          ).statements,
      ),
    )
  ).flat();
  assert.ok(statements.length > 50);
  for (const chunkChars of [1, 10, 1000, 1 << 26]) {
    assert.deepEqual(
      decodeStatements(encodeStatements(statements, chunkChars)),
      statements,
      `chunks of ${chunkChars}`,
    );
  }
  assert.deepEqual(decodeStatements(encodeStatements([])), []);
  // an empty literal between two terms longer than a chunk stays where the reader looks for it
  const literal = (object: string) => ({
    ...statements[0],
    object,
    objectKind: 'literal' as const,
    datatype: XSD,
    lang: null,
  });
  const around = [literal('abcdef'), literal(''), literal('ghijkl')];
  assert.deepEqual(decodeStatements(encodeStatements(around, 4)), around);
});

test('packed statements keep triple terms, base directions and graph names, however many are in graphs', () => {
  const DIR = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';
  const base = { subject: 'http://ex.org/s', predicate: 'http://ex.org/p', lang: null };
  const shapes = [
    {
      ...base,
      object: 'x',
      objectKind: 'literal' as const,
      datatype: DIR,
      lang: 'ar',
      direction: 'rtl' as const,
    },
    {
      ...base,
      object: '<<( _:b1 <http://ex.org/p> "y"@en--ltr )>>',
      objectKind: 'triple' as const,
      datatype: null,
    },
    { ...base, object: 'z', objectKind: 'literal' as const, datatype: XSD },
  ];
  // every statement in a graph (the packed numbers grow), then some, then none
  for (const inGraph of [() => true, (i: number) => i % 7 === 3, () => false]) {
    const statements = Array.from({ length: 300 }, (_, i) => {
      const s = shapes[i % shapes.length];
      return inGraph(i) ? { ...s, sourceGraph: i % 2 ? `http://ex.org/g${i % 5}` : '_:bg' } : s;
    });
    assert.deepEqual(decodeStatements(encodeStatements(statements, 64)), statements);
  }
});

test('remote contexts a worker asks for are loaded on the main thread, once per document', async () => {
  const asked: string[] = [];
  const body = Buffer.from(
    JSON.stringify([
      { '@context': 'http://ctx.example/a', '@id': 'http://ex.org/1', name: 'one' },
      { '@context': 'http://ctx.example/b', '@id': 'http://ex.org/2', name: 'two' },
      { '@context': 'http://ctx.example/a', '@id': 'http://ex.org/3', name: 'three' },
    ]),
  );
  const loadContext = async (url: string) => {
    asked.push(url);
    return JSON.stringify({ '@context': { name: `${url}#name` } });
  };
  const result = await readDocument(
    { body, contentType: 'application/ld+json', documentUrl: 'http://ex.org/doc', loadContext },
    LIMITS,
  );
  assert.equal(result.error, null, result.errorMessage ?? '');
  assert.deepEqual(
    result.statements.map((s) => s.predicate),
    ['http://ctx.example/a#name', 'http://ctx.example/b#name', 'http://ctx.example/a#name'],
  );
  assert.deepEqual(asked, ['http://ctx.example/a', 'http://ctx.example/b']);
  const limited = await readDocument(
    { body, contentType: 'application/ld+json', documentUrl: 'http://ex.org/doc', loadContext },
    { ...LIMITS, maxContexts: 1 },
  );
  assert.equal(limited.error, 'context_limit');
  assert.deepEqual(limited.statements, []);
});

test('IRIs without a scheme, which N-Quads cannot carry, are dropped with their statements', async () => {
  const html =
    '<html><body vocab="\uFFFDhttp://schema.org/"><div typeof="Event"><span property="name">Party</span>' +
    '<span property="http://ex.org/ok">kept</span></div></body></html>';
  const result = await parseDocument({
    body: Buffer.from(html),
    contentType: 'text/html',
    documentUrl: 'http://ex.org/d',
  });
  assert.deepEqual(
    result.statements.map((s) => [s.predicate, s.object]),
    [['http://ex.org/ok', 'kept']],
  );
  const back = await parseDocument({
    body: Buffer.from(serializeNQuads(result.statements, 'http://ex.org/d')),
    contentType: 'application/n-quads',
    documentUrl: 'http://ex.org/d',
  });
  assert.equal(back.error, null);
});

/** An N-Triples body of `n` statements (a dump-like document). */
function ntriples(n: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(`<http://ex.org/r${i}> <http://ex.org/p> "value number ${i}" .\n`);
  return Buffer.from(lines.join(''));
}

test('a document needing more heap than a parse worker may use is too_complex, and the next one is read', async () => {
  const big = await readDocument(
    { body: ntriples(600_000), contentType: 'application/n-triples', documentUrl: 'http://ex.org/big' },
    { ...LIMITS, heapMb: 64 },
  );
  assert.equal(big.error, 'too_complex', String(big.errorMessage));
  assert.match(String(big.errorMessage), /out of memory/);
  assert.deepEqual(big.statements, []);
  const small = await readDocument(
    { body: ntriples(1000), contentType: 'application/n-triples', documentUrl: 'http://ex.org/small' },
    { ...LIMITS, heapMb: 64 },
  );
  assert.equal(small.error, null);
  assert.equal(small.statements.length, 1000);
});

test('releasing the idle parse workers spares a document being read, and reading goes on after', async () => {
  const body = ntriples(50_000);
  const reading = readDocument(
    { body, contentType: 'application/n-triples', documentUrl: 'http://ex.org/a' },
    LIMITS,
  );
  // released while the document is sent to or read by a worker
  releaseParseWorkers();
  await new Promise((resolve) => setImmediate(resolve));
  releaseParseWorkers();
  const read = await reading;
  assert.equal(read.error, null);
  assert.equal(read.statements.length, 50_000);
  releaseParseWorkers();
  const again = await readDocument(
    { body, contentType: 'application/n-triples', documentUrl: 'http://ex.org/b' },
    LIMITS,
  );
  assert.equal(again.statements.length, 50_000);
});

test('a worker whose heap grew past half its limit reading a large document is replaced by a fresh one', async () => {
  const limits = { ...LIMITS, heapMb: 128 };
  const small = ntriples(100);
  const read = (body: Buffer) =>
    readDocument({ body, contentType: 'application/n-triples', documentUrl: 'http://ex.org/d' }, limits);
  // one at a time: the pool keeps its workers, as many as it has started
  assert.equal((await read(small)).statements.length, 100);
  const before = parseWorkersStarted();
  assert.equal((await read(small)).statements.length, 100);
  assert.equal(parseWorkersStarted(), before, 'a small document does not replace its worker');
  // 40 MB of distinct literals, live twice when the worker answers (the statements and their packed
  // copy): past half the limit whatever the collector did, so the verdict does not hang on its timing
  const large = Buffer.from(
    Array.from(
      { length: 40_000 },
      (_, i) => `<http://ex.org/r${i}> <http://ex.org/p> "${i} ${'x'.repeat(1000)}" .\n`,
    ).join(''),
  );
  assert.equal((await read(large)).statements.length, 40_000);
  assert.equal((await read(small)).statements.length, 100);
  assert.equal(parseWorkersStarted(), before + 1, 'the grown worker was replaced');
});

test('documents whose parsing ends near the heap limit end their worker, never the process', () => {
  const run = spawnSync(process.execPath, [fileURLToPath(new URL('./near-heap-limit.ts', import.meta.url))], {
    encoding: 'utf8',
  });
  assert.equal(
    run.status,
    0,
    `the reading process died (${run.signal ?? run.status}): ${run.stderr.slice(-2000)}`,
  );
  const verdicts = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(verdicts.length, 4);
  for (const verdict of verdicts) {
    // either read whole or refused as too complex: nothing in between
    if (verdict.error === null) assert.ok(verdict.statements >= verdict.n, JSON.stringify(verdict));
    else assert.deepEqual([verdict.error, verdict.statements], ['too_complex', 0], JSON.stringify(verdict));
  }
});
