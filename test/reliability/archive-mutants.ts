/**
 * Mutants of what `verify --deep` and `reparse` read: a published week whose WARC file, CDXJ
 * index blocks or secondary index is damaged at random (bytes flipped, cut, repeated), with the manifest and SHA256SUMS
 * recomputed as a thorough forger would, so that the damage reaches the record and index readers
 * instead of stopping at the checksums. Each mutant must end in exit 0, or exit 1 with one line
 * naming a code of the vocabulary, within a minute: never a crash, a signal, an uncoded line or a
 * hang (issue #31). Used by test/reliability/archive-fuzz.test.ts and `npm run soak`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES } from '../../pipeline/core/index.ts';
import { seededRandom } from '../../pipeline/schedule/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { CLI } from '../commands/cli-process.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';
import { relist } from '../snapshot/relist.ts';

const W0 = Date.UTC(2026, 0, 5);
export const MUTANT_WEEK = '2026-01-05';
export const MUTANT_TARGETS = ['warc', 'index.cdx.gz', 'index.idx'] as const;

/** Publishes the week the mutants are made of into `root`. */
export async function publishMutantWeek(root: string): Promise<void> {
  const sim = await startSimWeb({ seed: 11, docs: 30, plds: 10, latencyScale: 0, faults: 0, now: W0 });
  try {
    const published = await simWeekly(sim, root, W0, rdfDocuments(sim, W0), { adaptiveRounds: 0 });
    if (published.status !== 'published')
      throw new Error(`the mutants' week was not published: ${published.status}`);
  } finally {
    sim.close();
  }
}

/** One random damage: a run of bytes flipped, the file cut short, or a slice repeated. */
function mutate(bytes: Buffer, random: () => number): Buffer {
  const at = Math.floor(random() * bytes.length);
  const kind = Math.floor(random() * 3);
  if (kind === 0) {
    const out = Buffer.from(bytes);
    const end = Math.min(out.length, at + 1 + Math.floor(random() * 16));
    for (let i = at; i < end; i++) out[i] ^= 1 + Math.floor(random() * 255);
    return out;
  }
  if (kind === 1) return bytes.subarray(0, at);
  const end = Math.min(bytes.length, at + 1 + Math.floor(random() * 4096));
  return Buffer.concat([bytes.subarray(0, end), bytes.subarray(at, end), bytes.subarray(end)]);
}

const CODED = new RegExp(`^observatory: .*\\[(${Object.keys(ERROR_CODES).join('|')})\\]$`);

/**
 * Runs `cases` mutants of `target` of the week published in `pristine`, each in a folder of its
 * own under `work`; returns what went wrong (empty: every mutant ended as it must).
 */
export async function runMutants(
  pristine: string,
  work: string,
  target: (typeof MUTANT_TARGETS)[number],
  cases: number,
  seed = target.length * 7919,
): Promise<string[]> {
  const random = seededRandom(seed);
  const problems: string[] = [];
  for (let i = 0; i < cases; i++) {
    const root = join(work, `${target}-${seed}-${i}`);
    const folder = join(root, MUTANT_WEEK);
    await cp(join(pristine, MUTANT_WEEK), folder, { recursive: true });
    const name = target === 'warc' ? readdirSync(folder).find((n) => n.endsWith('.warc.gz'))! : target;
    writeFileSync(join(folder, name), mutate(readFileSync(join(folder, name)), random));
    relist(folder, [name]);
    for (const args of [
      ['verify', '--deep', folder],
      ['reparse', folder, '--out', join(root, 'reparsed')],
    ]) {
      const r = spawnSync(process.execPath, [CLI, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
        killSignal: 'SIGKILL',
      });
      const last = r.stderr.trim().split('\n').at(-1) ?? '';
      const what = `${name} mutant ${i} (seed ${seed}), ${args[0]}`;
      if (r.signal !== null) problems.push(`${what}: killed by ${r.signal} (a hang or a crash)`);
      else if (r.status !== 0 && r.status !== 1) problems.push(`${what}: exit ${r.status}: ${last}`);
      else if (r.status === 1 && !CODED.test(last)) problems.push(`${what}: an uncoded line: ${last}`);
    }
  }
  return problems;
}
