import { readdirSync, readFileSync } from 'node:fs';

/** Peak resident memory and open file descriptors of a child process, sampled from /proc. */
export interface ProcessSamples {
  /** [ms since start, RSS MiB, open fds] every interval while the process ran. */
  readonly samples: [number, number, number][];
  stop(): void;
}

function sample(pid: number): [number, number] | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    return [rss, readdirSync(`/proc/${pid}/fd`).length];
  } catch {
    return null; // the process is gone
  }
}

/** Samples a process every `intervalMs` until stopped (Linux only: it reads /proc). */
export function sampleProcess(pid: number, intervalMs = 200): ProcessSamples {
  const samples: [number, number, number][] = [];
  const start = performance.now();
  const timer = setInterval(() => {
    const s = sample(pid);
    if (s) samples.push([performance.now() - start, s[0], s[1]]);
  }, intervalMs);
  return { samples, stop: () => clearInterval(timer) };
}

/** Peaks over the first and the second half of a run: flat when the second is not much above the first. */
export function halves(samples: readonly [number, number, number][]): {
  rss: [number, number];
  fds: [number, number];
} {
  const mid = Math.floor(samples.length / 2);
  const peak = (list: readonly [number, number, number][], i: 1 | 2) => Math.max(0, ...list.map((s) => s[i]));
  const a = samples.slice(0, mid);
  const b = samples.slice(mid);
  return { rss: [peak(a, 1), peak(b, 1)], fds: [peak(a, 2), peak(b, 2)] };
}
