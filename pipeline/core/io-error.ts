import { type ErrorCode, ObservatoryError } from './errors.ts';

/**
 * The system error codes that say the disk failed us (full, over quota, read-only, failing, a file
 * over the size limit), each with the text the C library gives it: DuckDB reports these failures
 * with the text only, Node with the code.
 */
const STORAGE_FAILURES: Readonly<Record<string, RegExp>> = {
  ENOSPC: /No space left on device/i,
  EDQUOT: /Disk quota exceeded/i,
  EROFS: /Read-only file system/i,
  EIO: /Input\/output error/i,
  EFBIG: /File too large/i,
};

/** Other system errors DuckDB names by their text only. */
const OTHER_TEXTS: Readonly<Record<string, RegExp>> = {
  EACCES: /Permission denied/i,
  EMFILE: /Too many open files/i,
};

/**
 * System errors of a connection to a server rather than of a local file: a command that fails with
 * one at the top lost a server it needed (the coordinator's PostgreSQL, a snapshots URL).
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const SYSTEM_CODE = /^E[A-Z0-9_]+$/;

/**
 * The system error code (ENOSPC, EROFS, EACCES...) behind a failure, looked for in it and its causes:
 * Node's `code`, or the code whose text a message holds (DuckDB's `IO Error: ... No space left on
 * device`). Null when there is none (a bug, a parse error, a PostgreSQL error code).
 */
export function systemErrorCode(error: unknown): string | null {
  const seen = new Set<unknown>();
  for (
    let e = error;
    typeof e === 'object' && e !== null && !seen.has(e);
    e = (e as { cause?: unknown }).cause
  ) {
    seen.add(e);
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && SYSTEM_CODE.test(code) && !code.startsWith('ERR_')) return code;
    const text = String(message ?? '');
    for (const texts of [STORAGE_FAILURES, OTHER_TEXTS])
      for (const [name, pattern] of Object.entries(texts)) if (pattern.test(text)) return name;
  }
  return null;
}

/**
 * True when an error says the disk failed us (full, quota, read-only, I/O), whether it comes from
 * Node's fs (a code) or from DuckDB (only a message): those are `io`, not bugs.
 */
export function isStorageFailure(error: unknown): boolean {
  return Object.hasOwn(STORAGE_FAILURES, systemErrorCode(error) ?? '');
}

/** `text`, followed by the system error code behind `error` in parentheses unless the text names it already. */
export function withSystemCode(text: string, error: unknown): string {
  const code = systemErrorCode(error);
  return code === null || text.includes(code) ? text : `${text} (${code})`;
}

/** Wraps a file-system failure into an `io` error that names the path, what was being done and the system's code. */
export function ioError(doing: string, path: string, error: unknown): ObservatoryError {
  if (error instanceof ObservatoryError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ObservatoryError('io', `cannot ${doing} ${path}: ${withSystemCode(detail, error)}`, {
    cause: error,
  });
}

/**
 * The code a failure is reported with: its own when it has one; for any other error, `io` when a
 * system error of the machine is behind it (ENOSPC, EROFS, EACCES, EIO...), `unavailable` when it
 * is a connection's (a server refused or dropped it), else `internal`: an error nobody coded is a bug.
 */
export function failureCode(error: unknown): ErrorCode {
  if (error instanceof ObservatoryError) return error.code;
  const code = systemErrorCode(error);
  if (code === null) return 'internal';
  return CONNECTION_CODES.has(code) ? 'unavailable' : 'io';
}
