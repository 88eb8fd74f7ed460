import { cutText, failureCode, MESSAGE_LIMIT, ObservatoryError, withSystemCode } from '../core/index.ts';

/** Exit code of a failed command: 2 for bad input (usage), 1 for everything else. */
export function exitCodeFor(error: unknown): number {
  return error instanceof ObservatoryError && error.code === 'invalid_input' ? 2 : 1;
}

/**
 * One line on stderr that says what went wrong and its code (docs/errors.md), whatever was thrown:
 * an error nobody coded is `internal`, or `io` with its system code (ENOSPC, EROFS) when the machine
 * failed; the system code behind any failure is named. The stack only with OBSERVATORY_DEBUG set.
 */
export function reportFailure(error: unknown): void {
  const text = error instanceof Error ? error.message : String(error);
  const line = withSystemCode(cutText(text.split('\n')[0], MESSAGE_LIMIT), error);
  process.stderr.write(`observatory: ${line} [${failureCode(error)}]\n`);
  if (process.env.OBSERVATORY_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
}
