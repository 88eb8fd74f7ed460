import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { type ProcessPeak, sampleTree } from './process-tree.ts';

/** A checkout of the project whose `observatory` the year runs: the old tag's worktree or this one. */
export interface Version {
  /** `wave2` or `current`. */
  readonly label: string;
  /** The checkout's root folder. */
  readonly dir: string;
  /** Its `pipeline/cli.ts`. */
  readonly cli: string;
  /** The commit it is at, short, with `+ uncommitted changes` when its pipeline/ or site/ has any. */
  readonly commit: string;
}

/** One `observatory` process as cron would have started it, and what it cost. */
export interface CliRun {
  readonly command: string;
  readonly version: string;
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly wallMs: number;
  /** The `observatory` process's own peak RSS (MiB). */
  readonly peakMiB: number;
  /** Its descendants (Astro's build under `portal`), each with its peak. */
  readonly children: readonly Omit<ProcessPeak, 'pid'>[];
  /** The largest summed RSS of the whole tree at one sample. */
  readonly treePeakMiB: number;
  /** Descendants still running when the process ended (a SIGKILL leaves them). */
  readonly orphans: readonly number[];
  readonly stdout: string;
  readonly stderr: string;
}

/** A process started and not yet waited for. */
export interface RunningCli {
  readonly pid: number;
  readonly exited: Promise<CliRun>;
  /** Whether it still runs. */
  running(): boolean;
  /** SIGKILL to the `observatory` process alone (as the OOM killer or a power cut's survivor would see it). */
  kill(): void;
}

const TAIL = 16_384;

/**
 * Starts `node <version>/pipeline/cli.ts ARGS` in `cwd`, its output kept (and appended to `outputLog`
 * with a header, the way cron mails it), its process tree sampled for peak memory.
 */
export function startCli(
  version: Version,
  args: readonly string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; outputLog: string; label: string },
): RunningCli {
  const started = performance.now();
  const child = spawn(process.execPath, [version.cli, ...args], {
    cwd: o.cwd,
    env: o.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const sampler = sampleTree(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
    if (stderr.length > 4 * TAIL) stderr = stderr.slice(-TAIL);
  });
  let done = false;
  const exited = new Promise<CliRun>((resolve) => {
    child.once('close', (exitCode, signal) => {
      done = true;
      sampler.stop();
      const [self, ...descendants] = sampler.processes();
      const run: CliRun = {
        command: args[0],
        version: version.label,
        args,
        exitCode,
        signal,
        wallMs: performance.now() - started,
        peakMiB: self?.peakMiB ?? 0,
        children: descendants.map(({ command, peakMiB }) => ({ command, peakMiB })),
        treePeakMiB: sampler.treePeakMiB(),
        orphans: sampler.liveDescendants(),
        stdout,
        stderr: stderr.slice(-TAIL),
      };
      appendFileSync(
        o.outputLog,
        `### ${o.label}: observatory ${args.join(' ')} (${version.label}) -> ${signal ?? exitCode}, ${(run.wallMs / 1000).toFixed(1)} s\n${stdout}${stderr}`,
      );
      resolve(run);
    });
  });
  return {
    pid: child.pid!,
    exited,
    running: () => !done,
    kill: () => {
      if (!done) child.kill('SIGKILL');
    },
  };
}
