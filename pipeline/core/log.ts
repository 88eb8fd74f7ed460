import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, pino } from 'pino';
import { ObservatoryError } from './errors.ts';
import { ioError } from './io-error.ts';
import { makeDirectory } from './make-directory.ts';

export type { Logger };

/**
 * Opens (creating it and its folder) the log file now, so that a log that cannot be written is an
 * `io` error before any work, not an unhandled error event from the asynchronous writer later.
 */
function openLogFile(file: string): number {
  makeDirectory(dirname(file), 'the log folder');
  try {
    return openSync(file, 'a');
  } catch (cause) {
    throw new ObservatoryError('io', `cannot open the log file ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
}

const ignore = () => {};

/**
 * The log file, written asynchronously. A write that fails (the disk is full) stops the command
 * with an `io` error that names the file and the system's code, like any write of a run, thrown
 * where nothing awaits it (the CLI reports it in one line). The writer is silenced first: its flush
 * at exit would retry the failed write for ever.
 */
function logFileDestination(file: string) {
  const destination = pino.destination({ fd: openLogFile(file), sync: false });
  destination.on('error', (cause: unknown) => {
    Object.assign(destination, { write: ignore, flush: ignore, flushSync: ignore, end: ignore });
    throw ioError('write the log file', file, cause);
  });
  return destination;
}

/**
 * Structured logs (JSON lines) for machines. They go to a file when given, so that the terminal
 * keeps the human progress line; `silent` turns them off (tests).
 */
export function createLogger(options: { level?: string; file?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.OBSERVATORY_LOG_LEVEL ?? 'info';
  // stderr is written synchronously, as the CLI's own lines are: the one line that ends a failed run
  // comes after every log line (an asynchronous writer flushed a warning after it, under load)
  const destination = options.file
    ? logFileDestination(options.file)
    : pino.destination({ dest: 2, sync: true });
  return pino({ level, name: options.name ?? 'observatory', base: undefined }, destination);
}

export const silentLogger: Logger = pino({ level: 'silent' });
