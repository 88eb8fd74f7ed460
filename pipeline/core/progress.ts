import type { Clock } from './clock.ts';

/** What a long-running stage reports as it goes. */
export interface ProgressState {
  done: number;
  total: number;
  /** Extra facts for the line, e.g. `{ plds: 12, errors: 'timeout:3' }`. */
  extra?: Record<string, string | number>;
}

export interface Progress {
  update(state: ProgressState): void;
  finish(state: ProgressState): void;
}

function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 90) return `${Math.round(seconds)}s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`;
  return `${(seconds / 3600).toFixed(1)}h`;
}

/** The progress line's text: done/total, rate, ETA and the stage's extras. */
export function formatProgress(label: string, state: ProgressState, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (state.done * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? (state.total - state.done) / rate : Number.NaN;
  const extras = Object.entries(state.extra ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join('  ');
  return `${label} ${state.done}/${state.total}  ${rate.toFixed(1)}/s  ETA ${formatEta(eta)}${extras ? `  ${extras}` : ''}`;
}

/**
 * Progress for people: redrawn in place at most every 200 ms on a terminal, one line every
 * `intervalMs` otherwise (cron mail, CI logs). Writes nothing when `stream` is null.
 */
export function createProgress(
  label: string,
  clock: Clock,
  stream: NodeJS.WriteStream | null = process.stderr,
  intervalMs = 10_000,
): Progress {
  const start = clock.now();
  let last = Number.NEGATIVE_INFINITY;
  const tty = stream?.isTTY === true;
  const every = tty ? 200 : intervalMs;
  const write = (state: ProgressState, final: boolean) => {
    if (!stream) return;
    const line = formatProgress(label, state, clock.now() - start);
    stream.write(tty ? `\r\x1b[2K${line}${final ? '\n' : ''}` : `${line}\n`);
  };
  return {
    update(state) {
      const now = clock.now();
      if (now - last < every) return;
      last = now;
      write(state, false);
    },
    finish(state) {
      write(state, true);
    },
  };
}
