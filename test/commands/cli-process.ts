import { type ChildProcess, spawn } from 'node:child_process';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';

/** The `observatory` entry point, for tests and benchmarks that run the CLI as a child process. */
export const CLI = new URL('../../pipeline/cli.ts', import.meta.url).pathname;

/** Where a test's `observatory snapshot` run reads, writes and crawls: `resolve` routes every host to a local Web. */
export interface SnapshotRun {
  readonly kernel: string;
  readonly out: string;
  readonly now: string;
  readonly resolve: string;
}

/** The arguments of `observatory snapshot` for one such run; the caller appends its own pacing options. */
export function snapshotCliArgs({ kernel, out, now, resolve }: SnapshotRun): string[] {
  return [
    'snapshot',
    '--kernel',
    kernel,
    '--out',
    out,
    '--now',
    now,
    '--resolve',
    resolve,
    '--allow-private',
  ];
}

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `observatory ARGS` without blocking this process (never spawnSync here: a simulated Web
 * served by the test process must keep answering the child's requests).
 */
export function runCli(args: readonly string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr })));
}

/** A simulated Web served by `observatory simweb ARGS` in its own process, once it listens. */
export interface SimWebProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** What it printed until it was listening. */
  readonly banner: string;
  stop(): void;
}

/** Starts `observatory simweb` (add `--port 0` for any free port) and waits until it listens. */
export async function startSimWebProcess(args: readonly string[]): Promise<SimWebProcess> {
  const child = spawn(process.execPath, [CLI, 'simweb', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /--resolve '\*=127\.0\.0\.1:(\d+)'/.exec(out);
      if (m && out.includes('core seed list')) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`simweb exited ${code}: ${out}`)));
  });
  return { port, child, banner: out, stop: () => child.kill('SIGTERM') };
}

/** One line of a simulated Web's ground truth, as far as the benchmarks pick URLs from it. */
export interface TruthLine {
  readonly uri: string;
  readonly kind: string;
  readonly format: string | null;
}

/** The ground truth of a simulated Web served by another process (`GET /__sim/truth`). */
export async function simTruth(port: number): Promise<TruthLine[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/__sim/truth`)).text();
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TruthLine);
}

/** A simulated Web's request log since it was last cleared (`GET /__sim/log`). */
export async function requestLog(port: number): Promise<RequestLogEntry[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/__sim/log`)).text();
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RequestLogEntry);
}

/** Empties a simulated Web's request log, so that the next crawl's requests are the only ones in it. */
export async function clearRequestLog(port: number): Promise<void> {
  await (await fetch(`http://127.0.0.1:${port}/__sim/log`, { method: 'DELETE' })).text();
}
