/**
 * `npm run soak [-- --budget SECONDS]`: the long reliability runs that do not fit in `npm test`.
 * A crawl of a faulty simulated Web killed with SIGKILL again and again (while crawling and while
 * publishing) and compared with uninterrupted runs; politeness and robots.txt audited at the
 * server; disk full during publish; the crawler's peak memory and file descriptors; mutants of a
 * week's archive for verify --deep and reparse (archive-mutants.ts). Prints a table
 * and exits 1 if anything failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MUTANT_TARGETS, publishMutantWeek, runMutants } from '../reliability/archive-mutants.ts';
import { crashSoak } from './crash-soak.ts';
import { diskFullCheck } from './disk-full.ts';

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '300' },
    seed: { type: 'string', default: '7' },
    docs: { type: 'string', default: '800' },
    plds: { type: 'string', default: '60' },
    faults: { type: 'string', default: '5' },
    mutants: { type: 'string', default: '40' },
  },
});
const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
const failures: string[] = [];
const rows: [string, string][] = [];

const crash = await crashSoak({
  seed: Number(values.seed),
  docs: Number(values.docs),
  plds: Number(values.plds),
  faults: Number(values.faults),
  budgetMs: Number(values.budget) * 1000,
  log,
});
const faults = Object.entries(crash.audit.faults)
  .map(([k, n]) => `${n} ${k}`)
  .join(', ');
rows.push(
  [
    'simulated Web',
    `seed ${values.seed}, ${values.docs} documents, ${values.plds} PLDs, faults x${values.faults}, kernel ${crash.kernel}`,
  ],
  ['faults injected (requests answered with)', faults],
  [
    'uninterrupted run',
    `${crash.referenceSeconds.toFixed(1)} s; two runs agree: ${crash.referencesAgree.length === 0 ? 'yes' : 'NO'}`,
  ],
  [
    'kills survived (SIGKILL)',
    `${crash.kills.crawling} while crawling, ${crash.kills.publishing} while publishing (${crash.restarts} starts)`,
  ],
  [
    'documents compared',
    `${crash.compared.documents}, ${crash.differences.length === 0 ? 'all equal' : 'DIFFERENT'}`,
  ],
  ['quads compared', `${crash.compared.quads}`],
  [
    'verify, duplicates, partial publishes',
    crash.problems.length === 0 ? 'passes, none, none' : crash.problems.slice(0, 3).join('; '),
  ],
  ['requests audited at the server', String(crash.audit.requests)],
  ['politeness violations (per-PLD delay)', String(crash.audit.delayViolations.length)],
  ['robots.txt violations', String(crash.audit.robotsViolations.length)],
  ['crawler peak RSS, 1st / 2nd half', `${crash.peak.rssMiB.map((m) => m.toFixed(0)).join(' / ')} MiB`],
  ['crawler peak open fds, 1st / 2nd half', crash.peak.fds.join(' / ')],
);
if (crash.referencesAgree.length > 0)
  failures.push(`two uninterrupted runs differ:\n${crash.referencesAgree.join('\n')}`);
if (crash.differences.length > 0) failures.push(`killed run differs:\n${crash.differences.join('\n')}`);
failures.push(
  ...crash.problems,
  ...crash.audit.delayViolations.slice(0, 10),
  ...crash.audit.robotsViolations.slice(0, 10),
);

const disk = await diskFullCheck();
rows.push([
  'disk full during publish (8 MiB tmpfs)',
  disk.skipped ??
    (disk.problems.length === 0
      ? `clear error, last snapshot intact (${disk.error.slice(0, 60)}…)`
      : disk.problems.join('; ')),
]);
failures.push(...disk.problems);

const fuzzWork = mkdtempSync(join(tmpdir(), 'soak-mutants-'));
try {
  await publishMutantWeek(join(fuzzWork, 'pristine'));
  for (const target of MUTANT_TARGETS) {
    const problems = await runMutants(
      join(fuzzWork, 'pristine'),
      fuzzWork,
      target,
      Number(values.mutants),
      Number(values.seed),
    );
    rows.push([
      `${target} mutants for verify --deep and reparse (checksums recomputed)`,
      problems.length === 0
        ? `${values.mutants}: each exit 0 or one coded line`
        : `${problems.length} FAILED`,
    ]);
    failures.push(...problems);
  }
} finally {
  rmSync(fuzzWork, { recursive: true, force: true });
}

process.stdout.write(
  `\n| check | result |\n| --- | --- |\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`,
);
if (failures.length > 0) {
  process.stdout.write(`\nFAILED:\n${failures.join('\n')}\n`);
  process.exitCode = 1;
}
