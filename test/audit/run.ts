/**
 * `npm run audit [-- --documents N --plds P --weeks W --seed S --faults F --all --keep]`: the truth
 * audit (docs/audit.md) at a larger size than `npm test` runs it. Prints the comparison table
 * (figure, portal value, independent value, verdict; `--all` also the figures that agree) and the
 * figures listed without an independent check (`--keep` keeps the folder, with the server's log in
 * series.json and every comparison in audit.json), and exits 1 when a figure differs, a figure is not
 * audited, or the account cannot explain the server's log.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RUN_SIZE } from './audit-series.ts';
import { auditPassed, formatAudit, runTruthAudit } from './truth-audit.ts';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: String(RUN_SIZE.documents) },
    plds: { type: 'string', default: String(RUN_SIZE.plds) },
    weeks: { type: 'string', default: String(RUN_SIZE.weeks) },
    seed: { type: 'string', default: String(RUN_SIZE.seed) },
    faults: { type: 'string', default: String(RUN_SIZE.faults) },
    all: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const size = {
  seed: Number(values.seed),
  documents: Number(values.documents),
  plds: Number(values.plds),
  faults: Number(values.faults),
  weeks: Number(values.weeks),
};
for (const [k, v] of Object.entries(size))
  if (!Number.isFinite(v) || v < 0) {
    process.stderr.write(
      `audit: --${k} expects a number, got ${JSON.stringify(values[k as keyof typeof values])}\n`,
    );
    process.exit(2);
  }
const work = await mkdtemp(join(tmpdir(), 'truth-audit-'));
process.stderr.write(
  `audit: ${size.weeks} weeks of a simulated Web of ${size.documents} documents on ${size.plds} PLDs (seed ${size.seed}, faults x${size.faults}) in ${work}\n`,
);
try {
  const audit = await runTruthAudit(work, size);
  process.stdout.write(`${formatAudit(audit, { all: values.all, width: 60 })}\n`);
  process.exitCode = auditPassed(audit) ? 0 : 1;
  if (values.keep) {
    // the request log and the kernel beside the snapshots, to look into a difference later
    const { kernel, crawls } = audit.series;
    await writeFile(join(work, 'series.json'), JSON.stringify({ size, kernel, crawls }));
    await writeFile(join(work, 'audit.json'), JSON.stringify([...audit.report.rows, ...audit.pages]));
  }
} finally {
  if (values.keep) process.stderr.write(`audit: kept ${work}\n`);
  else await rm(work, { recursive: true, force: true });
}
