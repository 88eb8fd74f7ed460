import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CRAWL_DEFAULTS, ERROR_CODES } from '../../pipeline/core/index.ts';
import { parseDocument, readDocument, serializeNQuads } from '../../pipeline/rdf/index.ts';
import { independentCount } from '../rdf/external-tools.ts';
import { fuzzSeeds, mutate, prng } from './fuzz-corpus.ts';

/** Mutants per seed in `npm test`; `FUZZ_CASES=600` for a longer run. */
const CASES = Number(process.env.FUZZ_CASES ?? 12);
/**
 * CPU time one mutant may take to parse and hash (bodies are at most a few hundred KiB): CPU time
 * in the parse worker, so a loaded machine does not change the verdict. A mutant that runs out of
 * it is a relative of the stray-end-tag page: a document whose cost explodes.
 */
const BUDGET_MS = 10_000;
const CONTEXT = JSON.stringify({ '@context': { name: 'http://schema.org/name' } });
const GRAPH = 'http://fuzz.example.org/doc';
const out = mkdtempSync(join(tmpdir(), 'fuzz-'));
after(() => rmSync(out, { recursive: true, force: true }));

for (const seed of fuzzSeeds()) {
  test(`mutants of ${seed.name} read to statements or an error of the vocabulary, within the CPU budget`, async () => {
    const random = prng(seed.name.length * 7919 + seed.body.length);
    let nquadsOfAll = '';
    let statementsOfAll = 0;
    for (let i = 0; i < CASES; i++) {
      const body = mutate(seed.body, random);
      const what = `${seed.name} mutant ${i}`;
      const contexts = new Set<string>();
      const result = await readDocument(
        {
          body,
          contentType: seed.contentType,
          documentUrl: GRAPH,
          loadContext: async (url) => {
            contexts.add(url);
            return CONTEXT;
          },
        },
        {
          cpuBudgetMs: BUDGET_MS,
          maxContexts: CRAWL_DEFAULTS.maxContextsPerDocument,
          heapMb: CRAWL_DEFAULTS.parseMemoryMb,
        },
      );
      if (result.error !== null)
        assert.ok(result.error in ERROR_CODES, `${what}: unknown error ${result.error}`);
      // the budget's refusal, told from the depth guards' by its message (the code is the same)
      assert.ok(
        !(result.error === 'too_complex' && /CPU time/.test(result.errorMessage ?? '')),
        `${what}: ${result.errorMessage}`,
      );
      assert.ok(
        contexts.size <= CRAWL_DEFAULTS.maxContextsPerDocument,
        `${what}: ${contexts.size} contexts loaded`,
      );
      assert.ok(
        result.format !== null || result.statements.length === 0,
        `${what}: statements without a format`,
      );
      assert.equal(result.graphHash === null, result.statements.length === 0, what);
      if (result.statements.length > 0) {
        assert.match(result.graphHash ?? '', /^(exact|rdfc1|fallback):/);
        // what we write, we read back: every statement, nothing else
        const nquads = serializeNQuads(result.statements, GRAPH);
        const back = await parseDocument({
          body: Buffer.from(nquads),
          contentType: 'application/n-quads',
          documentUrl: GRAPH,
        });
        assert.equal(back.error, null, `${what}: our N-Quads do not parse: ${back.errorMessage}`);
        assert.equal(back.statements.length, result.statements.length, `${what}: N-Quads round trip`);
        // serd 0.30 and raptor 2.0 read no RDF 1.2 triple terms: they get the other statements
        const readable = result.statements.filter((s) => s.objectKind !== 'triple');
        nquadsOfAll += serializeNQuads(readable, GRAPH);
        statementsOfAll += readable.length;
      }
    }
    // and the strict readers of other projects read all of it, every line
    const file = join(out, `${seed.name}.nq`);
    writeFileSync(file, nquadsOfAll);
    for (const tool of ['serdi', 'rapper'] as const) {
      assert.equal(independentCount(tool, 'nquads', file, GRAPH), statementsOfAll, `${seed.name}: ${tool}`);
    }
  });
}
