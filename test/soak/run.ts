/**
 * `npm run soak [-- --budget SECONDS]`: the long reliability runs that do not fit in `npm test`.
 * A crawl of a faulty simulated Web killed with SIGKILL again and again (while crawling and while
 * publishing) and compared with uninterrupted runs; politeness and robots.txt audited at the
 * server; disk full during publish; the crawler's peak memory and file descriptors. Prints a table
 * and exits 1 if anything failed.
 */
import { parseArgs } from 'node:util';
import { crashSoak } from './crash-soak.ts';
import { diskFullCheck } from './disk-full.ts';

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '300' },
    seed: { type: 'string', default: '7' },
    docs: { type: 'string', default: '800' },
    plds: { type: 'string', default: '60' },
    faults: { type: 'string', default: '5' },
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

process.stdout.write(
  `\n| check | result |\n| --- | --- |\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`,
);
if (failures.length > 0) {
  process.stdout.write(`\nFAILED:\n${failures.join('\n')}\n`);
  process.exitCode = 1;
}
