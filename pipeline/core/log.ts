import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * Structured logs (JSON lines) for machines. They go to a file when given, so that the terminal
 * keeps the human progress line; `silent` turns them off (tests).
 */
export function createLogger(options: { level?: string; file?: string; name?: string } = {}): Logger {
  const level = options.level ?? process.env.OBSERVATORY_LOG_LEVEL ?? 'info';
  const destination = options.file
    ? pino.destination({ dest: options.file, mkdir: true, sync: false })
    : pino.destination(2);
  return pino({ level, name: options.name ?? 'observatory', base: undefined }, destination);
}

export const silentLogger: Logger = pino({ level: 'silent' });
