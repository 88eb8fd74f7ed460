import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES } from '../../pipeline/core/index.ts';
import { graphHash, parseDocument } from '../../pipeline/rdf/index.ts';
import { fuzzSeeds, mutate, prng } from './fuzz-corpus.ts';

/** Mutants per seed in `npm test`; `npm run soak` runs many more (FUZZ_CASES). */
const CASES = Number(process.env.FUZZ_CASES ?? 12);
/** No document may take longer than this to parse and hash (bodies are at most a few KiB). */
const LIMIT_MS = 10_000;

function withinLimit<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still running after ${LIMIT_MS} ms`)), LIMIT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

for (const seed of fuzzSeeds()) {
  test(`mutants of ${seed.name} parse to statements or an error of the vocabulary, in bounded time`, async () => {
    const random = prng(seed.name.length * 7919 + seed.body.length);
    for (let i = 0; i < CASES; i++) {
      const body = mutate(seed.body, random);
      const what = `${seed.name} mutant ${i}`;
      const result = await withinLimit(
        parseDocument({ body, contentType: seed.contentType, documentUrl: 'http://fuzz.example.org/doc' }),
        what,
      );
      if (result.error !== null)
        assert.ok(result.error in ERROR_CODES, `${what}: unknown error ${result.error}`);
      assert.ok(
        result.format !== null || result.statements.length === 0,
        `${what}: statements without a format`,
      );
      if (result.statements.length > 0) {
        assert.match(
          await withinLimit(graphHash(result.statements), `${what} hash`),
          /^(exact|rdfc1|fallback):/,
        );
      }
    }
  });
}
