import pg from 'pg';
import type { Logger } from '../core/index.ts';
import { ignoreFailure, ObservatoryError } from '../core/index.ts';
import { ensureSchema } from './schema.ts';

/** A connection pool to the coordinator, its tables created where missing. */
export async function openPool(url: string, logger: Logger): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // an idle connection that breaks (server restarted) is reported here, not thrown at random
  pool.on('error', (error) => logger.warn({ error: error.message }, 'coordinator connection lost'));
  // one that breaks while checked out (in a transaction) fails its queries with the error, which
  // whileConnected reports; an 'error' event nobody listened to crashed the process with a stack
  // trace. The pool's listener above logs the idle ones already: this one only listens
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await ensureSchema(pool);
  } catch (error) {
    await ignoreFailure(() => pool.end());
    throw error;
  }
  return pool;
}

/**
 * PostgreSQL's SQLSTATE classes of a connection that ended or could not start: 08 connection
 * exception, 57P operator intervention (57P01 admin_shutdown in a restart, 57P02 crash_shutdown,
 * 57P03 cannot_connect_now while the server starts or stops).
 */
const LOST_STATES = /^(08|57P)/;
/** What node-postgres says of a connection that ended under it, or never came. */
const LOST_MESSAGES =
  /^Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/;
/** Socket errors of a connection that was reset or refused (a Unix socket's file gone is ENOENT on connect). */
const LOST_SOCKETS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Whether `error` says the connection to the coordinator's database was lost or could not be made. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof ObservatoryError) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && (LOST_STATES.test(code) || LOST_SOCKETS.has(code))) return true;
  return syscall === 'connect' || LOST_MESSAGES.test(error.message);
}

/**
 * Runs `work` (a coordinated crawl, a worker) and codes the loss of its database `unavailable`: a
 * PostgreSQL restart or stop ends the coordinator and the workers, and each says so in one line.
 * The crawl is kept in the database and the run's folder, so running the commands again once the
 * database is back goes on where they stopped (docs/distributed.md).
 */
export async function whileConnected<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isConnectionLoss(error)) throw error;
    const { message, code } = error as Error & { code?: unknown };
    const cause = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
    throw new ObservatoryError(
      'unavailable',
      `lost the coordinator's database: ${cause}; run the command again once PostgreSQL is back, the crawl goes on where it stopped`,
      { cause: error },
    );
  }
}
