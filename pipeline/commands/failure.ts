import { cutText, MESSAGE_LIMIT, ObservatoryError } from '../core/index.ts';

/** Exit code of a failed command: 2 for bad input (usage), 1 for everything else. */
export function exitCodeFor(error: unknown): number {
  return error instanceof ObservatoryError && error.code === 'invalid_input' ? 2 : 1;
}

/** One line on stderr that says what went wrong; the stack only with OBSERVATORY_DEBUG set. */
export function reportFailure(error: unknown): void {
  const message =
    error instanceof ObservatoryError
      ? `observatory: ${error.message} [${error.code}]`
      : `observatory: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${cutText(message.split('\n')[0], MESSAGE_LIMIT)}\n`);
  if (process.env.OBSERVATORY_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
}
