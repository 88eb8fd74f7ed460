/**
 * `npm run audit [-- --documents N --plds P --weeks W --seed S --faults F --coordinator --workers K --all --keep]`:
 * the truth audit (docs/audit.md) at a larger size than `npm test` runs it; with `--coordinator`,
 * every crawl through a PostgreSQL coordinator (a private server started as the tests start one)
 * and `--workers` in-process workers (default 2). Prints the comparison table
 * (figure, portal value, independent value, verdict; `--all` also the figures that agree) and the
 * figures listed without an independent check (`--keep` keeps the folder, with the server's log in
 * series.json and every comparison in audit.json), and exits 1 when a figure differs, a figure is not
 * audited, or the account cannot explain the server's log.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres, type TestPostgres } from '../distributed/postgres.ts';
import { type AuditMode, ONE_PROCESS, RUN_SIZE } from './audit-series.ts';
import { auditPassed, formatAudit, runTruthAudit } from './truth-audit.ts';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: String(RUN_SIZE.documents) },
    plds: { type: 'string', default: String(RUN_SIZE.plds) },
    weeks: { type: 'string', default: String(RUN_SIZE.weeks) },
    seed: { type: 'string', default: String(RUN_SIZE.seed) },
    faults: { type: 'string', default: String(RUN_SIZE.faults) },
    coordinator: { type: 'boolean', default: false },
    workers: { type: 'string', default: '2' },
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
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) {
  process.stderr.write(
    `audit: --workers expects a whole number above 0, got ${JSON.stringify(values.workers)}\n`,
  );
  process.exit(2);
}
const work = await mkdtemp(join(tmpdir(), 'truth-audit-'));
let server: TestPostgres | null = null;
let mode: AuditMode = ONE_PROCESS;
if (values.coordinator) {
  server = await startPostgres();
  mode = { kind: 'coordinator', url: server.url, workers };
}
process.stderr.write(
  `audit: ${size.weeks} weeks of a simulated Web of ${size.documents} documents on ${size.plds} PLDs (seed ${size.seed}, faults x${size.faults}) in ${work}, ` +
    `${mode.kind === 'coordinator' ? `through a PostgreSQL coordinator with ${workers} workers` : 'in one process'}\n`,
);
try {
  const audit = await runTruthAudit(work, size, mode);
  process.stdout.write(`${formatAudit(audit, { all: values.all, width: 60 })}\n`);
  process.exitCode = auditPassed(audit) ? 0 : 1;
  if (values.keep) {
    // the request log and the kernel beside the snapshots, to look into a difference later
    const { kernel, crawls } = audit.series;
    await writeFile(join(work, 'series.json'), JSON.stringify({ size, mode: mode.kind, kernel, crawls }));
    await writeFile(join(work, 'audit.json'), JSON.stringify([...audit.report.rows, ...audit.pages]));
  }
} finally {
  await server?.stop();
  if (values.keep) process.stderr.write(`audit: kept ${work}\n`);
  else await rm(work, { recursive: true, force: true });
}
