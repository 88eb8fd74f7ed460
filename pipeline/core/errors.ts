/**
 * The closed set of error codes. Every failure the observatory records or raises carries one
 * of these, so that callers (and researchers reading `documents.error`) match on a stable word,
 * never on a message. `action` says what a caller should do with it.
 */
export type ErrorAction = 'retry' | 'skip' | 'abort';

export const ERROR_CODES = {
  timeout: { action: 'retry', meaning: 'the whole fetch took longer than the fetch timeout' },
  dns: { action: 'skip', meaning: 'the host name did not resolve' },
  refused: { action: 'retry', meaning: 'the server refused the TCP connection' },
  reset: { action: 'retry', meaning: 'the connection was reset or closed before the response was complete' },
  tls_expired: {
    action: 'skip',
    meaning: "the server's TLS certificate has expired (or is not valid yet)",
  },
  tls_hostname: {
    action: 'skip',
    meaning: "the server's TLS certificate is not valid for the URL's host name",
  },
  tls_untrusted: {
    action: 'skip',
    meaning:
      "the server's TLS certificate is self-signed or issued by a CA that is not trusted (system store plus --ca-file)",
  },
  tls: {
    action: 'skip',
    meaning: 'the TLS handshake failed otherwise (protocol, cipher or certificate error not listed above)',
  },
  network: { action: 'retry', meaning: 'another network-level failure' },
  robots: { action: 'skip', meaning: 'robots.txt disallows the URL for our product token' },
  robots_unavailable: {
    action: 'retry',
    meaning: 'robots.txt answered 5xx or was unreachable, so the whole authority is disallowed for now',
  },
  too_large: { action: 'skip', meaning: 'the decompressed body exceeded the response size limit' },
  bad_encoding: { action: 'skip', meaning: 'the Content-Encoding could not be decoded' },
  not_rdf: { action: 'skip', meaning: 'the body is not RDF in any supported syntax (or only trivial RDFa)' },
  parse: { action: 'skip', meaning: 'the RDF has a syntax error; statements before the error are kept' },
  too_complex: {
    action: 'skip',
    meaning:
      'the document was not read: nested deeper than its parser allows, or parsing and hashing it took more than the per-document CPU budget',
  },
  context_limit: {
    action: 'skip',
    meaning:
      'a remote JSON-LD context the document needs was refused (per-document or per-crawl context limit), so its JSON-LD was not read',
  },
  redirect_loop: { action: 'skip', meaning: 'a redirect led back to a URL already on the redirect path' },
  redirect_limit: { action: 'skip', meaning: 'more redirect hops than the redirect path limit' },
  redirect_invalid: {
    action: 'skip',
    meaning:
      'a redirect without a usable Location header (missing, not http(s), or longer than 8,192 characters)',
  },
  blocked_address: {
    action: 'skip',
    meaning: 'the host resolves to a loopback, private, link-local or otherwise non-public address',
  },
  bad_url: {
    action: 'skip',
    meaning: 'the URL is not a valid http(s) URL, or is longer than 8,192 characters',
  },
  http_4xx: { action: 'skip', meaning: 'the server answered with a 4xx status (the status column has it)' },
  http_429: { action: 'retry', meaning: 'the server answered 429 Too Many Requests' },
  http_5xx: { action: 'retry', meaning: 'the server answered with a 5xx status (the status column has it)' },
  invalid_input: { action: 'abort', meaning: 'a command-line option, config value or input file is invalid' },
  io: {
    action: 'abort',
    meaning:
      "a local file could not be read or written; the line names the file and the system's code (ENOSPC, EROFS, EACCES, EIO)",
  },
  corrupt: {
    action: 'abort',
    meaning:
      'a local file (manifest, catalogue, snapshot) is damaged or inconsistent; a damaged journal line is skipped, and a run in progress whose run.json is damaged is moved aside and started over, both reported instead',
  },
  locked: { action: 'abort', meaning: 'another process holds the lock on the output folder' },
  unavailable: {
    action: 'abort',
    meaning:
      "a server the command needs could not be reached or went away: the published snapshots (observatory portal --snapshots-url) or the coordinator's PostgreSQL (--coordinator, observatory worker); run the command again once it is back",
  },
  internal: {
    action: 'abort',
    meaning: 'a bug: an invariant of the observatory did not hold, or a failure that nothing coded',
  },
} as const satisfies Record<string, { action: ErrorAction; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error with a stable code from ERROR_CODES; the message is for people, the code for programs. */
export class ObservatoryError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ObservatoryError';
    this.code = code;
  }
  get action(): ErrorAction {
    return ERROR_CODES[this.code].action;
  }
}

/** Characters of input an error message quotes at most: a 10 MB line must not come back whole on stderr. */
export const QUOTE_LIMIT = 200;

/** Characters of a one-line failure message at most (its quotes are cut already; this is the backstop). */
export const MESSAGE_LIMIT = 1000;

/** `text` cut to `limit` characters, with an ellipsis and the full length, never inside a surrogate pair. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // a lone surrogate is not valid UTF-8 on stderr
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1]) ? limit - 1 : limit;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/** Input as an error message quotes it: JSON-quoted (control characters visible), cut to QUOTE_LIMIT. */
export function quoteInput(given: unknown): string {
  return cutText(JSON.stringify(given) ?? String(given), QUOTE_LIMIT);
}

/** Shorthand for the most common boundary failure: an option or input that is not what was expected. */
export function invalidInput(what: string, expected: string, given: unknown): ObservatoryError {
  return new ObservatoryError('invalid_input', `${what}: expected ${expected}, got ${quoteInput(given)}`);
}

/**
 * Runs `work`, then `cleanup` whether it succeeded or not. When `work` failed, its error is what is
 * thrown even if `cleanup` fails too (a rollback of a transaction the failure ended, a close on the
 * disk that just filled): the first error says what happened, a cleanup's must never replace it.
 */
export async function withCleanup<T>(work: () => Promise<T>, cleanup: () => unknown): Promise<T> {
  let value: T;
  try {
    value = await work();
  } catch (error) {
    await ignoreFailure(cleanup);
    throw error;
  }
  await cleanup();
  return value;
}

/** Runs `cleanup` after a failure that is being thrown already; its own failure is dropped (see withCleanup). */
export async function ignoreFailure(cleanup: () => unknown): Promise<void> {
  try {
    await cleanup();
  } catch {
    // the failure being thrown says what happened
  }
}

/** The codes of a failed TLS handshake or certificate check (a stalled handshake is a `timeout`). */
export const TLS_ERROR_CODES: readonly ErrorCode[] = Object.freeze([
  'tls_expired',
  'tls_hostname',
  'tls_untrusted',
  'tls',
]);

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
