import { readdirSync, readFileSync } from 'node:fs';

/** One process of a tree as sampled from /proc: its command and its peak resident memory. */
export interface ProcessPeak {
  readonly pid: number;
  /** The program and its first argument that is not an option (`node cli.ts`, `node astro.mjs`). */
  readonly command: string;
  /** The kernel's high-water mark of its resident set (VmHWM), as last read. */
  peakMiB: number;
}

/** Peaks of a process and every descendant it started, sampled from /proc until stopped (Linux only). */
export interface TreeSampler {
  /** Every process seen, the root first. */
  readonly processes: () => ProcessPeak[];
  /** The largest sum of resident memory of the tree's processes at one sample. */
  readonly treePeakMiB: () => number;
  /** Descendants still alive (after the root died: orphans). */
  readonly liveDescendants: () => number[];
  stop(): void;
}

function readStatus(pid: number): { hwm: number; rss: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
    return { hwm: kib('VmHWM') / 1024, rss: kib('VmRSS') / 1024 };
  } catch {
    return null; // gone
  }
}

function children(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const program = argv[0]?.split('/').at(-1) ?? '?';
    const script = argv.slice(1).find((a) => !a.startsWith('-'));
    return script ? `${program} ${script.split('/').at(-1)}` : program;
  } catch {
    return '?';
  }
}

/**
 * Samples `rootPid` and its descendants every `intervalMs`: each process's VmHWM (the kernel's own
 * peak, so a spike between samples is not missed while the process lives) and the tree's summed RSS.
 * Descendants are remembered once seen, so orphans of a killed root are still followed.
 */
export function sampleTree(rootPid: number, intervalMs = 100): TreeSampler {
  const seen = new Map<number, ProcessPeak>();
  const alive = new Set<number>([rootPid]);
  let treePeak = 0;
  const tick = () => {
    const frontier = [rootPid, ...alive];
    const visited = new Set<number>();
    let sum = 0;
    while (frontier.length > 0) {
      const pid = frontier.pop()!;
      if (visited.has(pid)) continue;
      visited.add(pid);
      const status = readStatus(pid);
      if (!status) {
        alive.delete(pid);
        continue;
      }
      alive.add(pid);
      sum += status.rss;
      const known = seen.get(pid) ?? { pid, command: commandOf(pid), peakMiB: 0 };
      known.peakMiB = Math.max(known.peakMiB, status.hwm);
      seen.set(pid, known);
      frontier.push(...children(pid));
    }
    treePeak = Math.max(treePeak, sum);
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    processes: () => [...seen.values()],
    treePeakMiB: () => treePeak,
    liveDescendants: () => [...alive].filter((pid) => pid !== rootPid && readStatus(pid) !== null),
    stop: () => {
      tick();
      clearInterval(timer);
    },
  };
}
