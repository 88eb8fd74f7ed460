/**
 * A DyLDO-size week: one weekly snapshot (kernel plus adaptive segment) of a whole simulated Web,
 * run as `observatory snapshot` in its own process under /usr/bin/time, so that its peak RSS is the
 * operating system's figure (worker threads and DuckDB included). The Web is served by its own
 * process with heavy-tailed document sizes, no latency, no faults, delay 1 ms; the kernel is every
 * other RDF document of the Web, and the adaptive crawl (3 hops, up to as many URIs again) finds the
 * rest through links. Two sizes are measured one after the other (BENCH_SCALE_DOCS, default
 * 50000,200000) so that memory growth with the crawl shows as a ratio of one run. A process's peak
 * moves by tens of MiB from run to run of one size (when V8 and glibc give pages back), as much as
 * the 10% the ratio goal allows, so BENCH_SCALE_RUNS (default 1) repeats the sizes, alternating
 * (50,000, 200,000, 50,000, ...) so that a change in the machine falls on both, and the ratio is
 * given for the highest peaks of each size and for the lowest.
 *
 * The crawl and publish phases are timed from the snapshot's structured log ('crawl finished'),
 * which also gives the crawl's own peak RSS and the RSS the publish starts on (after the full
 * collection between them): when the peak of the whole run is above the crawl's, the publish set
 * it. The command is one process (DuckDB and the parse workers are threads of it), so the maxrss
 * of /usr/bin/time is the peak of everything it runs (also after the command replaced itself to run
 * under its glibc malloc settings, pipeline/cli.ts: the same process); the load average is printed beside each size,
 * and a second table gives each publish phase's seconds and where the run's peak was reached. The
 * publish's statements per second are the published rows over its seconds, and "x plain COPY" its
 * seconds over those of a plain DuckDB COPY of the same rows (plain-copy.ts, run in this process
 * after the snapshot's has exited), as `npm run bench publish` prints for a synthetic journal.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, simTruth, startSimWebProcess } from '../commands/cli-process.ts';
import { plainCopySeconds } from './plain-copy.ts';

const SIZES = (process.env.BENCH_SCALE_DOCS ?? '50000,200000').split(',').map(Number);
const PLDS = Number(process.env.BENCH_SCALE_PLDS ?? 650);
const SIZE_PROFILE = process.env.BENCH_SCALE_PROFILE ?? 'dyldo';
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 1);
const TIME = '/usr/bin/time';

interface WeekRun {
  readonly docs: number;
  readonly kernel: number;
  readonly documents: number;
  readonly statements: number;
  readonly seconds: number;
  readonly crawlSeconds: number;
  readonly publishSeconds: number;
  /** Seconds a plain DuckDB COPY of the published quads takes (see plainCopySeconds), measured after the run. */
  readonly copySeconds: number;
  readonly peakRssMiB: number;
  readonly crawlPeakRssMiB: number;
  readonly publishStartRssMiB: number;
  /** Each publish phase's seconds, CPU seconds (all threads) and the process's peak RSS (MiB) when it ended, in order. */
  readonly phases: readonly { phase: string; seconds: number; cpuSeconds: number; peakRssMiB: number }[];
  /** One-minute load average at the start and the end of the run. */
  readonly load: readonly [number, number];
}

/** Every other RDF document URI of the Web, from its ground truth. */
async function kernelUrls(port: number): Promise<string[]> {
  const documents = (await simTruth(port)).filter((r) => r.kind === 'document' && r.format !== null);
  return documents.filter((_, i) => i % 2 === 0).map((r) => r.uri);
}

function run(command: string, args: readonly string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
    // the snapshot's progress lines pass through, so a person watching sees the week go by
    process.stderr.write(c);
  });
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stderr })));
}

interface LogLine {
  time: number;
  rssMiB?: number;
  peakRssMiB?: number;
  phase?: string;
  ms?: number;
  cpuMs?: number;
}

/** The log lines whose message is `msg`. */
function loggedAll(log: string, msg: string): LogLine[] {
  return log
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as LogLine);
}

/** The first log line whose message is `msg`. */
function logged(log: string, msg: string): LogLine {
  const [first] = loggedAll(log, msg);
  if (first === undefined) throw new Error(`the snapshot's log has no '${msg}' line`);
  return first;
}

/**
 * Where the run's peak was reached: the crawl, or the first publish phase whose end saw it (the
 * phases log the process's peak so far, so the phase that raised it is the first to show it).
 */
function peakPhase(r: WeekRun): string {
  const publishPeak = Math.max(0, ...r.phases.map((p) => p.peakRssMiB));
  if (publishPeak <= r.crawlPeakRssMiB) return 'crawl';
  return r.phases.find((p) => p.peakRssMiB === publishPeak)!.phase;
}

async function week(docs: number, parent: string): Promise<WeekRun> {
  // a folder per run: the snapshot's log is appended to, and a second run of a size would read both
  const work = await mkdtemp(join(parent, `week-${docs}-`));
  const web = await startSimWebProcess([
    ...['--port', '0', '--docs', String(docs), '--plds', String(PLDS)],
    ...(SIZE_PROFILE ? ['--doc-sizes', SIZE_PROFILE] : []),
    ...['--latency-scale', '0', '--faults', '0'],
  ]);
  try {
    const kernel = await kernelUrls(web.port);
    const kernelFile = join(work, `kernel-${docs}.txt`);
    await writeFile(kernelFile, `${kernel.join('\n')}\n`);
    const out = join(work, `snapshots-${docs}`);
    const logFile = join(work, `snapshot-${docs}.log`);
    const load = loadavg()[0];
    const start = performance.now();
    const result = await run(TIME, [
      '-v',
      process.execPath,
      CLI,
      'snapshot',
      ...['--kernel', kernelFile, '--out', out, '--now', '2026-01-05'],
      ...['--resolve', `*=127.0.0.1:${web.port}`, '--allow-private', '--delay', '0.001'],
      ...['--log', logFile, '--log-level', 'info'],
    ]);
    const seconds = (performance.now() - start) / 1000;
    if (result.status !== 0) throw new Error(`snapshot of ${docs} documents exited ${result.status}`);
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr);
    const log = await readFile(logFile, 'utf8');
    const began = (JSON.parse(log.slice(0, log.indexOf('\n'))) as { time: number }).time;
    const crawled = logged(log, 'crawl finished');
    const published = logged(log, 'snapshot published').time;
    const manifest = JSON.parse(await readFile(join(out, '2026-01-05', 'manifest.json'), 'utf8')) as {
      counts: { documents: number; statements: number };
    };
    const copySeconds = await plainCopySeconds(join(out, '2026-01-05', 'quads.parquet'), work);
    await rm(out, { recursive: true, force: true });
    return {
      docs,
      kernel: kernel.length,
      documents: manifest.counts.documents,
      statements: manifest.counts.statements,
      seconds,
      crawlSeconds: (crawled.time - began) / 1000,
      publishSeconds: (published - crawled.time) / 1000,
      copySeconds,
      peakRssMiB: Number(rss?.[1] ?? Number.NaN) / 1024,
      crawlPeakRssMiB: crawled.peakRssMiB ?? Number.NaN,
      publishStartRssMiB: crawled.rssMiB ?? Number.NaN,
      phases: loggedAll(log, 'publish phase').map((p) => ({
        phase: p.phase!,
        seconds: p.ms! / 1000,
        cpuSeconds: p.cpuMs! / 1000,
        peakRssMiB: p.peakRssMiB!,
      })),
      load: [load, loadavg()[0]],
    };
  } finally {
    web.stop();
  }
}

export default async function (): Promise<void> {
  if (!existsSync(TIME)) throw new Error(`${TIME} is missing: apt-get install time`);
  if (!Number.isInteger(RUNS) || RUNS < 1)
    throw new Error(`BENCH_SCALE_RUNS must be a whole number of runs, not ${RUNS}`);
  const work = await mkdtemp(join(tmpdir(), 'bench-scale-'));
  try {
    process.stdout.write(
      '| simulated Web | kernel | documents | statements | crawl s | publish s | total s | publish statements/s | x plain COPY | crawl peak RSS MiB | RSS at publish start MiB | peak RSS MiB | load average |\n',
    );
    process.stdout.write(
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n',
    );
    const runs: WeekRun[] = [];
    for (const docs of Array.from({ length: RUNS }, () => SIZES).flat()) {
      const r = await week(docs, work);
      runs.push(r);
      process.stdout.write(
        `| ${r.docs} docs, ${PLDS} PLDs | ${r.kernel} | ${r.documents} | ${r.statements} | ${r.crawlSeconds.toFixed(0)} | ${r.publishSeconds.toFixed(0)} | ${r.seconds.toFixed(0)} | ${Math.round(r.statements / r.publishSeconds)} | ${(r.publishSeconds / r.copySeconds).toFixed(1)} | ${r.crawlPeakRssMiB} | ${r.publishStartRssMiB} | ${r.peakRssMiB.toFixed(0)} | ${r.load.map((l) => l.toFixed(1)).join('-')} |\n`,
      );
    }
    process.stdout.write(
      '\n| simulated Web | peak set in | publish phases: seconds / CPU seconds (peak RSS MiB so far) |\n| ---: | --- | --- |\n',
    );
    for (const r of runs) {
      const phases = r.phases
        .map((p) => `${p.phase} ${p.seconds.toFixed(1)} / ${p.cpuSeconds.toFixed(1)} (${p.peakRssMiB})`)
        .join(', ');
      process.stdout.write(`| ${r.docs} docs | ${peakPhase(r)} | ${phases} |\n`);
    }
    const [small, large] = [SIZES[0], SIZES.at(-1)!];
    if (small !== large) {
      const peaks = (docs: number) => runs.filter((r) => r.docs === docs).map((r) => r.peakRssMiB);
      const ratio = (pick: (peaks: number[]) => number) => {
        const [a, b] = [pick(peaks(large)), pick(peaks(small))];
        return `${(a / b).toFixed(2)} (${a.toFixed(0)} / ${b.toFixed(0)} MiB)`;
      };
      const highest = ratio((p) => Math.max(...p));
      process.stdout.write(
        RUNS === 1
          ? `\npeak RSS ${large} / ${small} documents: ${highest} (goal: at most 1.10, and at most 1024 MiB)\n`
          : `\npeak RSS ${large} / ${small} documents, ${RUNS} runs each: highest ${highest}, ` +
              `lowest ${ratio((p) => Math.min(...p))} (goal: at most 1.10, and at most 1024 MiB)\n`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
