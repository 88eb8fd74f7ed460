/**
 * `npm run test:stress [-- --runs N --hogs N]`: the whole suite (`npm test`) N times (default 3)
 * while CPU hogs (default one per core) keep every core busy, as on a shared CI machine. A test
 * whose verdict depends on timing fails here long before it fails in CI. Exits 1 unless every
 * run passed; prints each run's verdict, duration and failing tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    hogs: { type: 'string', default: String(availableParallelism()) },
  },
});
const runs = Number(values.runs);
const hogCount = Number(values.hogs);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(hogCount) || hogCount < 0) {
  process.stderr.write(
    `test:stress: --runs must be a positive integer and --hogs a non-negative one (got ${values.runs}, ${values.hogs})\n`,
  );
  process.exit(2);
}

// A busy loop in its own process, at the same priority as the suite: the scheduler shares the
// cores, so every test runs at roughly half speed or worse, with unpredictable pauses.
const hogs: ChildProcess[] = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopHogs = () => {
  for (const hog of hogs) hog.kill('SIGKILL');
};
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopHogs();
    process.exit(130);
  });
}

interface RunResult {
  readonly passed: boolean;
  readonly seconds: number;
  readonly failures: readonly string[];
}

/** One `npm test`, its output passed through, failing test names collected from the reporter. */
function runSuite(): Promise<RunResult> {
  const started = performance.now();
  const child = spawn('npm', ['test'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const failures: string[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    // the reporter repeats every failure under a closing `✖ failing tests:` heading, itself no test
    for (const line of lines) if (/^\s*✖ (?!failing tests:)/.test(line)) failures.push(line.trim());
  });
  return new Promise((resolve) => {
    child.on('close', (code) =>
      resolve({ passed: code === 0, seconds: (performance.now() - started) / 1000, failures }),
    );
  });
}

const results: RunResult[] = [];
for (let run = 1; run <= runs; run++) {
  process.stderr.write(`\ntest:stress: run ${run} of ${runs}, ${hogCount} CPU hogs\n`);
  results.push(await runSuite());
}
stopHogs();

process.stdout.write(`\n| run | verdict | seconds | failing tests |\n| --- | --- | ---: | --- |\n`);
results.forEach((r, i) => {
  const failing = [...new Set(r.failures)].slice(0, 10).join('; ') || '-';
  process.stdout.write(
    `| ${i + 1} | ${r.passed ? 'pass' : 'FAIL'} | ${r.seconds.toFixed(0)} | ${failing} |\n`,
  );
});
const failed = results.filter((r) => !r.passed).length;
process.stdout.write(`\n${runs - failed} of ${runs} runs passed with ${hogCount} CPU hogs\n`);
process.exit(failed === 0 ? 0 : 1);
