/**
 * The distributed mode against one process: the same weekly snapshot (kernel only, so one round
 * and a clean politeness bound) of a simulated Web served by its own process with network-like
 * latencies, crawled by `observatory snapshot` alone, then by `observatory snapshot --coordinator`
 * on a real PostgreSQL with 1 and with 3 `observatory worker` processes (each its own process, so
 * they can use separate cores). Two Webs:
 *
 * - politeness-bound: few PLDs holding many documents each and a delay that dominates; the
 *   busiest PLD sets the makespan whoever crawls it, so more workers cannot help;
 * - CPU-bound: many small PLDs, a tiny delay and the DyLDO heavy tail of document sizes, meant to
 *   make parsing the work that more processes could share (in the first run, docs/distributed.md,
 *   the simulated Web's own process serving the tail was the bound instead).
 *
 * For each: wall time of the whole command (publish included, the same work in every mode), the
 * crawl's makespan as the Web saw it (first to last request start) against the politeness lower
 * bound (max over PLDs of requests x delay), politeness violations counted at the server from its
 * request log (request starts of one PLD less than the delay apart: must be 0), and the
 * coordinator's overhead per document (1-worker wall time minus one-process wall time, per
 * document published). The machine's load average is printed beside each run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import { CLI, runCli, simTruth, snapshotCliArgs, startSimWebProcess } from '../commands/cli-process.ts';
import { politenessViolations, startsByPld } from '../crawl/sim-crawl.ts';
import { startPostgres, type TestPostgres } from '../distributed/postgres.ts';

interface Shape {
  readonly name: string;
  readonly docs: number;
  readonly plds: number;
  readonly docSizes: 'small' | 'dyldo';
  readonly latencyScale: number;
  readonly delayMs: number;
}

const SHAPES: readonly Shape[] = [
  { name: 'politeness-bound', docs: 500, plds: 12, docSizes: 'small', latencyScale: 0.02, delayMs: 80 },
  { name: 'CPU-bound', docs: 3000, plds: 1500, docSizes: 'dyldo', latencyScale: 0.2, delayMs: 1 },
];
const MODES = [0, 1, 3] as const;
const NOW = '2026-01-05';

interface Run {
  readonly workers: number;
  readonly documents: number;
  readonly seconds: number;
  readonly makespanMs: number;
  readonly boundMs: number;
  readonly violations: number;
  readonly load: readonly [number, number];
}

/** The simulated Web's request log since it was last cleared. */
async function requestLog(port: number): Promise<RequestLogEntry[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/__sim/log`)).text();
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RequestLogEntry);
}

async function clearRequestLog(port: number): Promise<void> {
  await (await fetch(`http://127.0.0.1:${port}/__sim/log`, { method: 'DELETE' })).text();
}

function startWorker(url: string, id: string): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(process.execPath, [CLI, 'worker', '--coordinator', url, '--id', id], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

async function snapshotOnce(
  shape: Shape,
  port: number,
  kernel: string,
  work: string,
  workers: number,
  server: TestPostgres,
): Promise<Run> {
  await clearRequestLog(port);
  const out = join(work, `snapshots-${workers}`);
  const coordinator = workers > 0 ? await server.database(`w${workers}-${shape.docs}-${shape.plds}`) : null;
  const started = coordinator
    ? Array.from({ length: workers }, (_, i) => startWorker(coordinator, `bench-${i}`))
    : [];
  const load0 = loadavg()[0];
  const start = performance.now();
  try {
    const result = await runCli([
      ...snapshotCliArgs({ kernel, out, now: NOW, resolve: `*=127.0.0.1:${port}` }),
      ...['--adaptive-rounds', '0', '--delay', String(shape.delayMs / 1000), '--no-warc', '--no-conditional'],
      ...(coordinator ? ['--coordinator', coordinator] : []),
    ]);
    const seconds = (performance.now() - start) / 1000;
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
      workers,
      documents: manifest.counts.documents,
      seconds,
      makespanMs: Math.max(...starts) - Math.min(...starts),
      boundMs,
      violations: politenessViolations(log, shape.delayMs).length,
      load: [load0, loadavg()[0]],
    };
  } finally {
    for (const w of started) w.child.kill('SIGTERM');
    await Promise.all(started.map((w) => w.exited));
    await rm(out, { recursive: true, force: true });
  }
}

async function measure(shape: Shape, work: string, server: TestPostgres): Promise<Run[]> {
  const web = await startSimWebProcess([
    ...['--port', '0', '--docs', String(shape.docs), '--plds', String(shape.plds)],
    ...['--doc-sizes', shape.docSizes, '--latency-scale', String(shape.latencyScale), '--faults', '0'],
  ]);
  try {
    const documents = (await simTruth(web.port)).filter((r) => r.kind === 'document' && r.format !== null);
    const kernel = join(work, `kernel-${shape.name}.txt`);
    await writeFile(kernel, `${documents.map((r) => r.uri).join('\n')}\n`);
    const runs: Run[] = [];
    for (const workers of MODES)
      runs.push(await snapshotOnce(shape, web.port, kernel, work, workers, server));
    return runs;
  } finally {
    web.stop();
  }
}

const mode = (workers: number) =>
  workers === 0 ? 'one process' : `coordinator + ${workers} worker${workers > 1 ? 's' : ''}`;

export default async function (): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'bench-distributed-'));
  const server = await startPostgres();
  try {
    process.stdout.write(
      '| Web | mode | documents | wall s | crawl makespan s | politeness bound s | makespan / bound | violations at the server | load average |\n',
    );
    process.stdout.write('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n');
    const overheads: string[] = [];
    for (const shape of SHAPES) {
      const runs = await measure(shape, work, server);
      const web = `${shape.name}: ${shape.docs} docs, ${shape.plds} PLDs, ${shape.docSizes} sizes, latency x${shape.latencyScale}, delay ${shape.delayMs} ms`;
      for (const r of runs) {
        process.stdout.write(
          `| ${web} | ${mode(r.workers)} | ${r.documents} | ${r.seconds.toFixed(1)} | ${(r.makespanMs / 1000).toFixed(1)} | ${(r.boundMs / 1000).toFixed(1)} | ${(r.makespanMs / r.boundMs).toFixed(2)} | ${r.violations} | ${r.load.map((l) => l.toFixed(1)).join('-')} |\n`,
        );
      }
      const [alone, one, three] = runs;
      overheads.push(
        `${shape.name}: coordinator overhead ${(((one.seconds - alone.seconds) * 1000) / one.documents).toFixed(2)} ms/document (1 worker ${one.seconds.toFixed(1)} s - one process ${alone.seconds.toFixed(1)} s, ${one.documents} documents); 3 workers / 1 worker wall time ${(three.seconds / one.seconds).toFixed(2)}`,
      );
    }
    process.stdout.write(`\n${overheads.join('\n')}\n`);
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}
