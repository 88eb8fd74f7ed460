import type { Clock } from './clock.ts';
import type { Logger } from './log.ts';

/** What a long-running stage reports as it goes. */
export interface ProgressState {
  done: number;
  total: number;
  /** Statements handled so far, when the stage handles statements (a crawl, a publish). */
  statements?: number;
  /** Extra facts for the line, e.g. `{ plds: 12, errors: 'timeout:3' }`. */
  extra?: Record<string, string | number>;
}

export interface Progress {
  update(state: ProgressState): void;
  finish(state: ProgressState): void;
}

/** Rates and ETA of a stage: what both the terminal line and the log line say. */
export interface ProgressRates {
  readonly perSecond: number;
  readonly statementsPerSecond: number | null;
  /** Seconds left at the current rate; NaN when there is no rate yet. */
  readonly etaSeconds: number;
}

/**
 * Rates over the work done in this process: `since` is the state when it started, so that a
 * resumed crawl (which starts with its journaled documents done) does not claim their rate.
 */
export function progressRates(
  state: ProgressState,
  elapsedMs: number,
  since: { done: number; statements: number } = { done: 0, statements: 0 },
): ProgressRates {
  const seconds = elapsedMs / 1000;
  const perSecond = seconds > 0 ? (state.done - since.done) / seconds : 0;
  return {
    perSecond,
    statementsPerSecond:
      state.statements === undefined
        ? null
        : seconds > 0
          ? (state.statements - since.statements) / seconds
          : 0,
    etaSeconds: perSecond > 0 ? (state.total - state.done) / perSecond : Number.NaN,
  };
}

function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 90) return `${Math.round(seconds)}s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`;
  return `${(seconds / 3600).toFixed(1)}h`;
}

/** The progress line's text: done/total, rates, ETA and the stage's extras. */
export function formatProgress(label: string, state: ProgressState, rates: ProgressRates): string {
  const statements =
    rates.statementsPerSecond === null
      ? ''
      : `  ${state.statements} statements  ${Math.round(rates.statementsPerSecond)} statements/s`;
  const extras = Object.entries(state.extra ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join('  ');
  return `${label} ${state.done}/${state.total}  ${rates.perSecond.toFixed(1)}/s${statements}  ETA ${formatEta(rates.etaSeconds)}${extras ? `  ${extras}` : ''}`;
}

const MIB = 1024 * 1024;

/** The process's memory in MiB: operators see in the log whether a long run's memory stays flat. */
function memoryFigures(): { rssMiB: number; heapMiB: number; externalMiB: number } {
  const m = process.memoryUsage();
  return {
    rssMiB: Math.round(m.rss / MIB),
    heapMiB: Math.round(m.heapUsed / MIB),
    externalMiB: Math.round(m.external / MIB),
  };
}

export interface ProgressOptions {
  /** Where the line goes: redrawn in place on a terminal, one line per interval otherwise; null: nowhere. */
  readonly stream?: NodeJS.WriteStream | null;
  /** Gap between lines when the stream is not a terminal. */
  readonly intervalMs?: number;
  /** The structured log that gets the same figures as a `progress` line at intervals. */
  readonly logger?: Logger;
  /** Gap between progress lines in the log. */
  readonly logIntervalMs?: number;
}

/**
 * Progress for people and for logs: redrawn in place at most every 200 ms on a terminal, one line
 * every `intervalMs` otherwise (cron mail, CI logs), and an info line `progress` with the same
 * figures every `logIntervalMs` in the JSON log (a crawl of hours is followed there). On a terminal
 * an update that comes too soon is drawn at the end of its 200 ms, not dropped: a stage that moves
 * to its next phase and then works for minutes shows that phase, not the one before.
 */
export function createProgress(label: string, clock: Clock, options: ProgressOptions = {}): Progress {
  const stream = options.stream === undefined ? process.stderr : options.stream;
  const start = clock.now();
  let since: { done: number; statements: number } | null = null;
  let lastLine = Number.NEGATIVE_INFINITY;
  let lastLog = start;
  const tty = stream?.isTTY === true;
  const every = tty ? 200 : (options.intervalMs ?? 10_000);
  const logEvery = options.logIntervalMs ?? 30_000;
  let pending: ReturnType<typeof setTimeout> | null = null;
  let latest: ProgressState | null = null;
  const draw = (state: ProgressState, now: number, final: boolean) => {
    lastLine = now;
    const line = formatProgress(label, state, progressRates(state, now - start, since ?? undefined));
    stream?.write(tty ? `\r\x1b[2K${line}${final ? '\n' : ''}` : `${line}\n`);
  };
  const report = (state: ProgressState, now: number, final: boolean) => {
    since ??= { done: state.done, statements: state.statements ?? 0 };
    const rates = progressRates(state, now - start, since);
    if (stream && (final || now - lastLine >= every)) {
      if (pending) clearTimeout(pending);
      pending = null;
      draw(state, now, final);
    } else if (tty && !final) {
      latest = state;
      pending ??= setTimeout(
        () => {
          pending = null;
          if (latest) draw(latest, clock.now(), false);
        },
        Math.max(0, lastLine + every - now),
      );
      pending.unref?.();
    }
    if (options.logger && (final || now - lastLog >= logEvery)) {
      lastLog = now;
      options.logger.info(
        {
          stage: label,
          done: state.done,
          total: state.total,
          perSecond: Number(rates.perSecond.toFixed(2)),
          ...(state.statements === undefined
            ? {}
            : { statements: state.statements, statementsPerSecond: Math.round(rates.statementsPerSecond!) }),
          etaSeconds: Number.isFinite(rates.etaSeconds) ? Math.round(rates.etaSeconds) : null,
          ...state.extra,
          ...memoryFigures(),
        },
        final ? 'progress: done' : 'progress',
      );
    }
  };
  return {
    update(state) {
      report(state, clock.now(), false);
    },
    finish(state) {
      report(state, clock.now(), true);
    },
  };
}
