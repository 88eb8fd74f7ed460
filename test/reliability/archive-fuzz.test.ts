/**
 * Fuzzing what `verify --deep` and `reparse` read: a published week whose WARC file and CDXJ index
 * are mutated at random (bytes flipped, cut, repeated), with the manifest and SHA256SUMS recomputed
 * as a thorough forger would, so that the damage reaches the record and index readers instead of
 * stopping at the checksums. Each mutant must end in exit 0, or exit 1 with one line naming a code
 * of the vocabulary, within a minute: never a crash, a signal, an uncoded line or a hang (issue #31).
 * `FUZZ_CASES=200` for a longer run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ERROR_CODES } from '../../pipeline/core/index.ts';
import { seededRandom as prng } from '../../pipeline/schedule/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { CLI } from '../commands/cli-process.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { relist } from '../snapshot/relist.ts';

const CASES = Number(process.env.FUZZ_CASES ?? 6);
const W0 = Date.UTC(2026, 0, 5);
const WEEK = '2026-01-05';
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'archive-fuzz-'));
  const sim = await startSimWeb({ seed: 11, docs: 30, plds: 10, latencyScale: 0, faults: 0, now: W0 });
  try {
    const published = await simWeekly(sim, join(work, 'pristine'), W0, rdfDocuments(sim, W0), {
      adaptiveRounds: 0,
    });
    assert.equal(published.status, 'published');
  } finally {
    sim.close();
  }
});
after(() => rmSync(work, { recursive: true, force: true }));

/** One random damage: a run of bytes flipped, the file cut short, or a slice repeated. */
function mutate(bytes: Buffer, random: () => number): Buffer {
  const at = Math.floor(random() * bytes.length);
  const kind = Math.floor(random() * 3);
  if (kind === 0) {
    const out = Buffer.from(bytes);
    for (let i = at; i < Math.min(out.length, at + 1 + Math.floor(random() * 16)); i++)
      out[i] ^= 1 + Math.floor(random() * 255);
    return out;
  }
  if (kind === 1) return bytes.subarray(0, at);
  const end = Math.min(bytes.length, at + 1 + Math.floor(random() * 4096));
  return Buffer.concat([bytes.subarray(0, end), bytes.subarray(at, end), bytes.subarray(end)]);
}

/** `observatory ARGS`: its exit, its last stderr line and whether it ran out of time. */
function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { status: r.status, signal: r.signal, last: r.stderr.trim().split('\n').at(-1) ?? '' };
}

const CODED = new RegExp(`^observatory: .*\\[(${Object.keys(ERROR_CODES).join('|')})\\]$`);

for (const target of ['warc', 'index.cdxj'] as const) {
  test(`mutants of a week's ${target === 'warc' ? 'WARC file' : 'CDXJ index'} (checksums recomputed) end in exit 0 or one coded line, in time`, async () => {
    const random = prng(target.length * 7919);
    for (let i = 0; i < CASES; i++) {
      const root = join(work, `${target}-${i}`);
      const folder = join(root, WEEK);
      await cp(join(work, 'pristine', WEEK), folder, { recursive: true });
      const name =
        target === 'warc' ? readdirSync(folder).find((n) => n.endsWith('.warc.gz'))! : 'index.cdxj';
      writeFileSync(join(folder, name), mutate(readFileSync(join(folder, name)), random));
      relist(folder, [name]);
      for (const args of [
        ['verify', '--deep', folder],
        ['reparse', folder, '--out', join(root, 'reparsed')],
      ]) {
        const run = cli(...args);
        const what = `${name} mutant ${i}, ${args[0]}`;
        assert.equal(run.signal, null, `${what}: killed by ${run.signal} (a hang or a crash)`);
        assert.ok(run.status === 0 || run.status === 1, `${what}: exit ${run.status}: ${run.last}`);
        if (run.status === 1) assert.match(run.last, CODED, what);
      }
    }
  });
}
