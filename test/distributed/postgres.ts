/**
 * A real PostgreSQL server for the distributed tests and benchmarks: initdb into a temporary
 * folder, pg_ctl start listening on a Unix socket in that folder only (no TCP port, so parallel
 * test files never clash), one database, and everything stopped and removed by `stop()`.
 *
 * PostgreSQL refuses to run as root (initdb and postgres both exit). Tests here run as root (CI
 * and the developers' machines), so as root the server runs as the `postgres` system user that
 * Debian's package creates, through `runuser`, and the folder is handed to that user. The client
 * (this process) then connects over the socket as role `postgres`, which trust authentication lets
 * in: the socket lives in a private temporary folder, so nobody else reaches it.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const SERVICE_USER = 'postgres';

export interface TestPostgres {
  /** `postgres://ROLE@/DB?host=DIR`: what `--coordinator` takes. */
  readonly url: string;
  /** Creates another empty database on the same server and returns its URL. */
  database(name: string): Promise<string>;
  /** Stops the server (immediate mode) and removes its folder; safe to call twice. */
  stop(): Promise<void>;
  /**
   * Shuts the server down as an operator does (`pg_ctl stop -m fast`: every session ends with
   * 57P01 admin_shutdown), keeping its data for `startAgain`.
   */
  shutDown(): Promise<void>;
  /** Starts a server shut down by `shutDown` again, on the same data and socket. */
  startAgain(): Promise<void>;
}

const asRoot = () => process.getuid?.() === 0;

/**
 * Where a PostgreSQL program is: Debian's package keeps initdb and pg_ctl in
 * /usr/lib/postgresql/VERSION/bin, off the PATH (the newest version there is taken); elsewhere
 * they are on the PATH.
 */
function pgProgram(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length > 0 ? join(root, versions[0], 'bin', name) : name;
}

/** Runs a PostgreSQL program as the user the server runs as (see the module comment). */
function runPg(name: string, args: readonly string[]) {
  const program = pgProgram(name);
  return asRoot() ? run('runuser', ['-u', SERVICE_USER, '--', program, ...args]) : run(program, [...args]);
}

/** Starts a fresh server with one empty database and returns its URL. */
export async function startPostgres(database = 'observatory'): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-'));
  const role = asRoot() ? SERVICE_USER : userInfo().username;
  const urlOf = (name: string) => `postgres://${role}@/${name}?host=${encodeURIComponent(dir)}`;
  const createDatabase = async (name: string) => {
    const admin = new pg.Client({ host: dir, user: role, database: 'postgres' });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    } finally {
      await admin.end();
    }
    return urlOf(name);
  };
  const data = join(dir, 'data');
  if (asRoot()) {
    const { stdout } = await run('id', ['-u', SERVICE_USER]);
    const { stdout: group } = await run('id', ['-g', SERVICE_USER]);
    chownSync(dir, Number(stdout), Number(group));
  }
  let started = false;
  const stop = async () => {
    if (started) {
      started = false;
      await runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // -k: the socket in our folder; -h '': no TCP at all; fsync off: a test server's data is thrown away
  const start = async () => {
    await runPg('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-k ${dir} -h '' -c fsync=off -c max_connections=200`,
      '-w',
      'start',
    ]);
    started = true;
  };
  const shutDown = async () => {
    await runPg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    started = false;
  };
  try {
    await runPg('initdb', ['-D', data, '-U', role, '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await start();
    await createDatabase(database);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: urlOf(database), database: createDatabase, stop, shutDown, startAgain: start };
}

/** Rows of a query on the database at `url` (a connection of its own, closed after it). */
export async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}
