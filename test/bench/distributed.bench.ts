/**
 * The distributed mode against one process: the same weekly snapshot (kernel only, so one round
 * and a clean politeness bound) of a simulated Web served by its own process with network-like
 * latencies, crawled by `observatory snapshot` alone, then by `observatory snapshot --coordinator`
 * on a real PostgreSQL with 1 and with 3 `observatory worker` processes (each its own process).
 * Every process gets the same fetch slots (`--concurrency`): a worker leases that many PLDs. Three
 * Webs:
 *
 * - politeness-bound: few PLDs holding many documents each and a delay that dominates; the
 *   busiest PLD sets the makespan whoever crawls it, so more workers cannot help;
 * - latency-bound: many small PLDs, a tiny delay and answers taking 100-300 ms (a few slow
 *   publishers far more), crawled with few slots per process: one process is bound by its slots x
 *   the answer time while the server sits idle, so three workers (three times the slots) finish
 *   sooner. One process given the three workers' slots is measured beside them: on one machine
 *   that is the same gain, without a coordinator;
 * - server-bound: many small PLDs, a tiny delay, the DyLDO heavy tail of document sizes and 64
 *   slots, meant to make parsing the work that more processes share; on this machine the simulated
 *   Web's own single process serving the tail is the bound (docs/distributed.md, "Performance").
 *
 * For each: wall time of the whole command (publish included, the same work in every mode), the
 * crawl's makespan as the Web saw it (first to last request start) against the politeness lower
 * bound (max over PLDs of requests x delay), politeness violations counted at the server from its
 * request log (request starts of one PLD less than the delay apart: must be 0), and the
 * coordinator's overhead per document (1-worker wall time minus one-process wall time, per
 * document published). The machine's load average is printed beside each run.
 *
 * A run the machine stalled is reported as such, not as a figure, and run once more: the bench's
 * own timer firing seconds late, or no request reaching the Web for a long time, measures the
 * machine (seen: minutes without a request on any PLD while a `sleep 60` elsewhere took 14).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { urlPld } from '../../pipeline/core/index.ts';
import {
  CLI,
  clearRequestLog,
  requestLog,
  runCli,
  simTruth,
  snapshotCliArgs,
  startSimWebProcess,
} from '../commands/cli-process.ts';
import { politenessViolations, startsByPld } from '../crawl/sim-crawl.ts';
import { startPostgres, type TestPostgres } from '../distributed/postgres.ts';

/** `workers` 0: one process. `slots`: fetch slots (`--concurrency`) of each crawling process. */
interface Mode {
  readonly workers: number;
  readonly slots: number;
}

interface Shape {
  readonly name: string;
  readonly docs: number;
  readonly plds: number;
  readonly docSizes: 'small' | 'dyldo';
  readonly latencyScale: number;
  readonly delayMs: number;
  /** Kernel documents taken from one PLD at most: keeps one slow PLD's chain from setting the makespan. */
  readonly perPld: number;
  /** The delay, not the answers or the server, is meant to bound the makespan: compare with it. */
  readonly politenessBound: boolean;
  readonly modes: readonly Mode[];
}

const modesAt = (slots: number): Mode[] => [0, 1, 3].map((workers) => ({ workers, slots }));

const SHAPES: readonly Shape[] = [
  {
    name: 'politeness-bound',
    docs: 250,
    plds: 12,
    docSizes: 'small',
    latencyScale: 0.02,
    delayMs: 80,
    perPld: Number.POSITIVE_INFINITY,
    politenessBound: true,
    modes: modesAt(64),
  },
  {
    name: 'latency-bound',
    docs: 400,
    plds: 200,
    docSizes: 'small',
    latencyScale: 2,
    delayMs: 1,
    perPld: 2,
    politenessBound: false,
    modes: [...modesAt(4), { workers: 0, slots: 12 }],
  },
  {
    name: 'server-bound',
    docs: 800,
    plds: 400,
    docSizes: 'dyldo',
    latencyScale: 0.2,
    delayMs: 1,
    perPld: Number.POSITIVE_INFINITY,
    politenessBound: false,
    modes: modesAt(64),
  },
];
const NOW = '2026-01-05';

/** The bench's own timer this late means the machine, not the crawl, stopped. */
const LATE_TIMER_MS = 5_000;
/** No request reaching the Web for this long: the slowest simulated answer is well below it. */
const SILENT_WEB_MS = 30_000;
/** A stalled run is run again this many times at most. */
const RETRIES = 1;

interface Run {
  readonly mode: Mode;
  readonly documents: number;
  readonly seconds: number;
  readonly makespanMs: number;
  readonly boundMs: number;
  readonly violations: number;
  readonly load: readonly [number, number];
  /** Why the run's times measure the machine rather than the crawl; null when they do not. */
  readonly stall: string | null;
}

/** Watches this process's timer: returns a stop function giving the largest lateness seen, in ms. */
function watchTimer(): () => number {
  const everyMs = 250;
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - everyMs);
    last = now;
  }, everyMs);
  return () => {
    clearInterval(timer);
    return worst;
  };
}

/** The longest time between two consecutive request starts, whichever PLDs they were for. */
function longestSilence(starts: readonly number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) longest = Math.max(longest, sorted[i] - sorted[i - 1]);
  return longest;
}

function stallOf(lateMs: number, silentMs: number): string | null {
  const found: string[] = [];
  if (lateMs >= LATE_TIMER_MS) found.push(`the bench's timer fired ${(lateMs / 1000).toFixed(0)} s late`);
  if (silentMs >= SILENT_WEB_MS) found.push(`no request on any PLD for ${(silentMs / 1000).toFixed(0)} s`);
  return found.length > 0 ? found.join('; ') : null;
}

/**
 * A worker whose stderr is kept and printed only if it exits with an error: every worker is stopped
 * with SIGTERM, and the line it prints for an operator then would fill the bench's table.
 */
function startWorker(url: string, id: string): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(process.execPath, [CLI, 'worker', '--coordinator', url, '--id', id], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: Buffer[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise((resolve) =>
    child.once('close', (code) => {
      if (code !== 0) process.stderr.write(`worker ${id} exited ${code}:\n${Buffer.concat(stderr)}`);
      resolve(code);
    }),
  );
  return { child, exited };
}

async function snapshotOnce(
  shape: Shape,
  port: number,
  kernel: string,
  work: string,
  mode: Mode,
  server: TestPostgres,
  attempt: number,
): Promise<Run> {
  await clearRequestLog(port);
  const { workers, slots } = mode;
  const out = join(work, `snapshots-${workers}-${slots}`);
  const coordinator =
    workers > 0 ? await server.database(`${shape.name}-w${workers}-s${slots}-a${attempt}`) : null;
  const started = coordinator
    ? Array.from({ length: workers }, (_, i) => startWorker(coordinator, `bench-${i}`))
    : [];
  const load0 = loadavg()[0];
  const stopWatch = watchTimer();
  const start = performance.now();
  try {
    const result = await runCli([
      ...snapshotCliArgs({ kernel, out, now: NOW, resolve: `*=127.0.0.1:${port}` }),
      ...['--adaptive-rounds', '0', '--delay', String(shape.delayMs / 1000), '--no-warc', '--no-conditional'],
      ...['--concurrency', String(slots)],
      ...(coordinator ? ['--coordinator', coordinator] : []),
    ]);
    const seconds = (performance.now() - start) / 1000;
    const lateMs = stopWatch();
    if (result.status !== 0)
      throw new Error(`snapshot with ${workers} workers exited ${result.status}: ${result.stderr}`);
    const manifest = JSON.parse(await readFile(join(out, NOW, 'manifest.json'), 'utf8')) as {
      counts: { documents: number };
    };
    const log = await requestLog(port);
    const starts = log.map((e) => e.startedAt);
    let boundMs = 0;
    for (const list of startsByPld(log).values()) boundMs = Math.max(boundMs, list.length * shape.delayMs);
    return {
      mode,
      documents: manifest.counts.documents,
      seconds,
      makespanMs: Math.max(...starts) - Math.min(...starts),
      boundMs,
      violations: politenessViolations(log, shape.delayMs).length,
      load: [load0, loadavg()[0]],
      stall: stallOf(lateMs, longestSilence(starts)),
    };
  } finally {
    stopWatch();
    for (const w of started) w.child.kill('SIGTERM');
    await Promise.all(started.map((w) => w.exited));
    await rm(out, { recursive: true, force: true });
  }
}

/** Every mode's run on one Web; a stalled run is followed by its retry (both returned). */
async function measure(shape: Shape, work: string, server: TestPostgres): Promise<Run[]> {
  const web = await startSimWebProcess([
    ...['--port', '0', '--docs', String(shape.docs), '--plds', String(shape.plds)],
    ...['--doc-sizes', shape.docSizes, '--latency-scale', String(shape.latencyScale), '--faults', '0'],
  ]);
  try {
    const taken = new Map<string, number>();
    const documents = (await simTruth(web.port))
      .filter((r) => r.kind === 'document' && r.format !== null)
      .map((r) => r.uri)
      .filter((uri) => {
        const n = taken.get(urlPld(uri)) ?? 0;
        taken.set(urlPld(uri), n + 1);
        return n < shape.perPld;
      });
    const kernel = join(work, `kernel-${shape.name}.txt`);
    await writeFile(kernel, `${documents.join('\n')}\n`);
    const runs: Run[] = [];
    for (const mode of shape.modes) {
      for (let attempt = 0; attempt <= RETRIES; attempt++) {
        const run = await snapshotOnce(shape, web.port, kernel, work, mode, server, attempt);
        runs.push(run);
        process.stdout.write(row(shape, run));
        if (run.stall === null) break;
      }
    }
    return runs;
  } finally {
    web.stop();
  }
}

const webName = (s: Shape) =>
  `${s.name}: ${s.docs} docs, ${s.plds} PLDs, ${s.docSizes} sizes, latency x${s.latencyScale}, delay ${s.delayMs} ms${Number.isFinite(s.perPld) ? `, kernel ${s.perPld} documents per PLD at most` : ''}`;

const modeName = ({ workers, slots }: Mode) =>
  `${workers === 0 ? 'one process' : `coordinator + ${workers} worker${workers > 1 ? 's' : ''}`}, ${slots} slots each`;

function row(shape: Shape, r: Run): string {
  const figures = r.stall
    ? [`stalled: ${r.stall}`, '-', '-', '-']
    : [
        r.seconds.toFixed(1),
        (r.makespanMs / 1000).toFixed(1),
        (r.boundMs / 1000).toFixed(1),
        shape.politenessBound ? (r.makespanMs / r.boundMs).toFixed(2) : '-',
      ];
  return `| ${webName(shape)} | ${modeName(r.mode)} | ${r.documents} | ${figures.join(' | ')} | ${r.violations} | ${r.load.map((l) => l.toFixed(1)).join('-')} |\n`;
}

/** The run of a mode that measured the crawl, if any did. */
function clean(runs: readonly Run[], workers: number, slots: number): Run | undefined {
  return runs.find((r) => r.mode.workers === workers && r.mode.slots === slots && r.stall === null);
}

function ratio(label: string, a: Run | undefined, b: Run | undefined): string {
  if (!a || !b) return `${label}: not measured (a run stalled)`;
  return `${label} ${(a.seconds / b.seconds).toFixed(2)} (${a.seconds.toFixed(1)} s / ${b.seconds.toFixed(1)} s), makespan ${(a.makespanMs / b.makespanMs).toFixed(2)}`;
}

function summary(shape: Shape, runs: readonly Run[]): string {
  const slots = shape.modes[0].slots;
  const alone = clean(runs, 0, slots);
  const one = clean(runs, 1, slots);
  const three = clean(runs, 3, slots);
  const lines = [
    alone && one
      ? `coordinator overhead ${(((one.seconds - alone.seconds) * 1000) / one.documents).toFixed(2)} ms/document (1 worker ${one.seconds.toFixed(1)} s - one process ${alone.seconds.toFixed(1)} s, ${one.documents} documents)`
      : 'coordinator overhead: not measured (a run stalled)',
    ratio('3 workers / 1 worker wall time', three, one),
  ];
  const wide = clean(runs, 0, 3 * slots);
  if (shape.modes.some((m) => m.workers === 0 && m.slots === 3 * slots))
    lines.push(ratio(`one process with ${3 * slots} slots / 3 workers wall time`, wide, three));
  return `${shape.name}: ${lines.join('; ')}`;
}

export default async function (): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'bench-distributed-'));
  const server = await startPostgres();
  try {
    process.stdout.write(
      '| Web | mode | documents | wall s | crawl makespan s | politeness bound s | makespan / bound | violations at the server | load average |\n',
    );
    process.stdout.write('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n');
    const summaries: string[] = [];
    for (const shape of SHAPES) {
      const runs = await measure(shape, work, server);
      summaries.push(summary(shape, runs));
    }
    process.stdout.write(`\n${summaries.join('\n')}\n`);
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}
