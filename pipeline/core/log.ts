import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Logger, pino } from 'pino';
import { ObservatoryError } from './errors.ts';
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

/**
 * Structured logs (JSON lines) for machines. They go to a file when given, so that the terminal
 * keeps the human progress line; `silent` turns them off (tests).
 */
export function createLogger(options: { level?: string; file?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.OBSERVATORY_LOG_LEVEL ?? 'info';
  const destination = options.file
    ? pino.destination({ fd: openLogFile(options.file), sync: false })
    : pino.destination(2);
  return pino({ level, name: options.name ?? 'observatory', base: undefined }, destination);
}

export const silentLogger: Logger = pino({ level: 'silent' });
