import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { urlPld } from '../../pipeline/core/index.ts';
import { isConnectionLoss } from '../../pipeline/distributed/pool.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { CLI, snapshotCliArgs } from '../commands/cli-process.ts';
import { rdfDocuments } from '../observe/sim-weekly.ts';
import { publishedContent } from '../soak/published-content.ts';
import { query, startPostgres, type TestPostgres } from './postgres.ts';
import { freshRoot } from './sim-distributed.ts';

/**
 * Issue #31, item 7: a PostgreSQL restart ended the coordinator with `observatory: connect ENOENT
 * /tmp/.../.s.PGSQL.5432` and every worker with an unhandled 'error' event's stack trace. Both now end
 * with one line coded `unavailable`, and running them again once the database is back publishes.
 */

const W0 = Date.UTC(2026, 0, 5);
let server: TestPostgres;

before(async () => {
  server = await startPostgres();
});

after(() => server?.stop());

/** `observatory ARGS` in a process of its own: its exit status and stderr once it ended. */
function observatory(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  const ended = new Promise<{ status: number | null; stderr: string; stdout: string }>((resolve) =>
    child.once('close', (status) => resolve({ status, stderr, stdout })),
  );
  return { child, ended };
}

/** The last line on stderr (the failure), after asserting that no stack trace came before it. */
function failureLine(stderr: string): string {
  assert.doesNotMatch(stderr, /^\s+at /m, stderr);
  return stderr
    .trimEnd()
    .split(/[\r\n]/)
    .at(-1)!;
}

test('PostgreSQL shut down mid-crawl: coordinator and worker end with one unavailable line; run again, the snapshot is published', async () => {
  const sim = await startSimWeb({ seed: 3, docs: 400, plds: 12, latencyScale: 0, faults: 0, now: W0 });
  const url = await server.database('lost');
  const dir = freshRoot('database-lost-');
  const kernel = join(dir, 'kernel.txt');
  // four documents on each PLD: the PLDs are crawled side by side, each for a few seconds
  const seeds = [...Map.groupBy(rdfDocuments(sim, W0), urlPld).values()].flatMap((urls) => urls.slice(0, 4));
  writeFileSync(kernel, `${seeds.join('\n')}\n`);
  const snapshot = [
    ...snapshotCliArgs({ kernel, out: join(dir, 'snapshots'), now: '2026-01-05', resolve: sim.resolveRule }),
    ...['--adaptive-rounds', '0', '--coordinator', url],
  ];
  // a short lease: the worker of the rerun takes the PLDs the lost one held soon after
  const worker = (id: string) => observatory(['worker', '--coordinator', url, '--lease', '2s', '--id', id]);
  try {
    const first = worker('first');
    // a second between two requests to a PLD (the rerun keeps it: the crawl's config is the run's)
    const coordinator = observatory([...snapshot, '--delay', '1']);
    for (;;) {
      const [{ n }] = await query(url, 'SELECT count(*)::int AS n FROM result').catch(() => [{ n: 0 }]);
      if ((n as number) >= 5) break;
      assert.equal(
        first.child.exitCode ?? coordinator.child.exitCode,
        null,
        'a process ended before the test',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await server.shutDown();
    for (const [who, ended] of [
      ['worker', await first.ended],
      ['coordinator', await coordinator.ended],
    ] as const) {
      assert.equal(ended.status, 1, `${who}: ${ended.stderr}`);
      assert.match(
        failureLine(ended.stderr),
        /^observatory: lost the coordinator's database: .+; run the command again once PostgreSQL is back, the crawl goes on where it stopped \[unavailable\]$/,
        who,
      );
    }

    await server.startAgain();
    const again = worker('again');
    const rerun = await observatory(snapshot).ended;
    again.child.kill('SIGTERM');
    await again.ended;
    assert.equal(rerun.status, 0, rerun.stderr);
    assert.match(rerun.stdout, /published .*2026-01-05/);
    const content = await publishedContent(join(dir, 'snapshots', '2026-01-05'));
    assert.deepEqual(content.duplicateUrls, []);
    const urls = new Set(content.documents.map((line) => line.split(' ')[0]));
    assert.deepEqual(
      seeds.filter((seed) => !urls.has(seed)),
      [],
      'every kernel URL is published',
    );
  } finally {
    await sim.close();
  }
});

test('what counts as losing the coordinator: a session ended by the server, a connection refused or cut, not a refused value', () => {
  const cases: [string, Error, boolean][] = [
    [
      'admin_shutdown (a restart)',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      true,
    ],
    [
      'cannot_connect_now (a server starting)',
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      true,
    ],
    [
      'the socket file gone',
      Object.assign(new Error('connect ENOENT /tmp/pg/.s.PGSQL.5432'), {
        code: 'ENOENT',
        syscall: 'connect',
      }),
      true,
    ],
    [
      'refused',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      true,
    ],
    ['reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }), true],
    ['cut under node-postgres', new Error('Connection terminated unexpectedly'), true],
    [
      'a value PostgreSQL refuses',
      Object.assign(new Error('invalid byte sequence'), { code: '22021' }),
      false,
    ],
    ['a deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01' }), false],
    [
      'a local file',
      Object.assign(new Error("ENOENT: no such file, open 'x'"), { code: 'ENOENT', syscall: 'open' }),
      false,
    ],
  ];
  for (const [name, error, lost] of cases) assert.equal(isConnectionLoss(error), lost, name);
});
