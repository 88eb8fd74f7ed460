/**
 * Fuzzing what `verify --deep` and `reparse` read (archive-mutants.ts): 3 mutants of each of a
 * week's WARC file, CDXJ index blocks and secondary index in `npm test`; `FUZZ_CASES=200` for a longer run, and
 * `npm run soak` runs more.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MUTANT_TARGETS, publishMutantWeek, runMutants } from './archive-mutants.ts';

const CASES = Number(process.env.FUZZ_CASES ?? 3);
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'archive-fuzz-'));
  await publishMutantWeek(join(work, 'pristine'));
});
after(() => rmSync(work, { recursive: true, force: true }));

for (const target of MUTANT_TARGETS) {
  test(`mutants of a week's ${target === 'warc' ? 'WARC file' : target} (checksums recomputed) end in exit 0 or one coded line, in time`, async () => {
    assert.deepEqual(await runMutants(join(work, 'pristine'), work, target, CASES), []);
  });
}
