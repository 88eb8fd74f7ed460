import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../commands/cli-process.ts';
import { killWhenJournaled } from '../commands/kill-when-journaled.ts';
import { startServer, type TestServer } from '../web/http-server.ts';

/**
 * Issue #13: a damaged `run.json` of a crawl in progress made every later `snapshot` and `tick` fail
 * with `corrupt` until someone deleted `.incomplete/` by hand. Now the damaged run is moved aside
 * (kept for inspection, never read again), the loss is reported in one line on stderr and in the
 * log, and the command goes on: a weekly snapshot starts its week's crawl over under the week's
 * name, a tick crawls its slot afresh.
 */
const url = (path: string) => `http://${path}.example/${path}`;
const KERNEL = ['a', 'b', 'held'];

let server: TestServer;
/** While set, `/held` is never answered: a crawl cannot finish and is killed with it in flight. */
let holding = false;
const held: ServerResponse[] = [];
/** Every fetch gets a new version, so that every document changes at every observation. */
let version = 0;

before(async () => {
  server = await startServer((req, res) => {
    const path = (req.url ?? '/').slice(1);
    if (path === 'robots.txt') return void res.writeHead(404).end();
    if (path === 'held' && holding) return void held.push(res);
    res
      .writeHead(200, { 'content-type': 'text/turtle' })
      .end(`<${url(path)}> <http://p.example/version> "${++version}" .\n`);
  });
});
after(() => server.close());

const kernel = join(mkdtempSync(join(tmpdir(), 'run-state-kernel-')), 'kernel.txt');
writeFileSync(kernel, `${KERNEL.map(url).join('\n')}\n`);

function crawlArgs(command: 'snapshot' | 'tick', out: string, now: string): string[] {
  return [
    command,
    ...(command === 'snapshot' ? ['--kernel', kernel, '--adaptive-rounds', '0'] : []),
    '--out',
    out,
    '--now',
    now,
    '--delay',
    '0',
    // `/held` must still be in flight when the run is killed, however loaded the machine
    '--timeout',
    '1h',
    '--resolve',
    `*=127.0.0.1:${server.port}`,
    '--allow-private',
  ];
}

const requests = (path: string) => server.seen.filter((s) => s.path === `/${path}`).length;
const runFile = (out: string, name: string) => join(out, '.incomplete', name, 'run.json');

/** Kills `args` with -9 once `/a` and `/b` are journaled while `/held` hangs: a real run in `.incomplete/<name>/`. */
async function killedRun(args: string[], out: string, name: string): Promise<void> {
  holding = true;
  await killWhenJournaled(args, join(out, '.incomplete', name, 'crawl', 'journal.ndjson'), [
    url('a'),
    url('b'),
  ]);
  for (const res of held.splice(0)) res.destroy();
  holding = false;
}

/** The damages a run.json meets (disk, editor, a kill during a hand edit), each applied to the real file. */
const DAMAGES: ReadonlyArray<{ label: string; damage: (text: string) => string; problem: string }> = [
  {
    label: 'truncated',
    damage: (t) => t.slice(0, t.length / 2),
    problem: 'it is not JSON: truncated or garbled',
  },
  {
    label: 'invalid JSON',
    damage: (t) => t.replace(':', ';'),
    problem: 'it is not JSON: truncated or garbled',
  },
  {
    label: 'valid JSON of the wrong shape',
    damage: (t) => JSON.stringify({ ...JSON.parse(t), seeds: url('a') }),
    problem: 'its "seeds" are not a list of URLs',
  },
  { label: 'empty', damage: () => '', problem: 'it is empty' },
];

/** A copy of a killed run's snapshots folder with the run's run.json damaged; returns the damaged bytes. */
function damagedCopy(pristine: string, name: string, damage: (text: string) => string) {
  const out = mkdtempSync(join(tmpdir(), 'run-state-out-'));
  cpSync(pristine, out, { recursive: true });
  const text = damage(readFileSync(runFile(out, name), 'utf8'));
  writeFileSync(runFile(out, name), text);
  return { out, text };
}

/** The folders a damaged run was moved to. */
function aside(out: string, name: string): string[] {
  return readdirSync(join(out, '.incomplete')).filter((f) => f.startsWith(`${name}.damaged-`));
}
/** The damaged-run warnings of a structured log. */
const warnings = (log: string) =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg.startsWith('damaged run state moved aside'));

/** Asserts the one stderr line and the one log entry that report a damaged run, and returns the line. */
function assertReported(stderr: string, log: string, out: string, name: string, problem: string): string {
  const lines = stderr.split('\n').filter((l) => l.includes('is damaged'));
  assert.equal(lines.length, 1, stderr);
  const movedTo = aside(out, name);
  assert.equal(movedTo.length, 1, `moved aside once: ${movedTo}`);
  const [moved] = movedTo;
  assert.ok(
    lines[0].startsWith(
      `observatory: ${runFile(out, name)} is damaged (${problem}): ` +
        `${name.includes('T') ? 'interval' : 'weekly'} run ${name} moved aside to ${join(out, '.incomplete', moved)}; `,
    ),
    lines[0],
  );
  assert.deepEqual(
    warnings(log).map((w) => [w.run, w.problem, w.movedTo]),
    [[name, problem, join(out, '.incomplete', moved)]],
  );
  return lines[0];
}

test('a weekly run with a damaged run.json starts over under its week’s name, whatever the damage', async () => {
  const pristine = mkdtempSync(join(tmpdir(), 'run-state-weekly-'));
  await killedRun(crawlArgs('snapshot', pristine, '2026-01-05T00:00:00Z'), pristine, '2026-01-05');
  for (const { label, damage, problem } of DAMAGES) {
    const { out, text } = damagedCopy(pristine, '2026-01-05', damage);
    const before = requests('a');
    const log = join(out, 'run.log');
    // a day later, in the same week: the crawl must be published as 2026-01-05, not 2026-01-06
    const r = await runCli([...crawlArgs('snapshot', out, '2026-01-06T00:00:00Z'), '--log', log]);
    assert.equal(r.status, 0, `${label}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(`published ${join(out, '2026-01-05')}: {`), `${label}: ${r.stdout}`);
    const line = assertReported(r.stderr, log, out, '2026-01-05', problem);
    assert.ok(
      line.endsWith('its crawl is lost and starts over under the same name (its week is not over)'),
      line,
    );
    assert.ok(!existsSync(join(out, '2026-01-06')), `${label}: not named by the day it restarted`);
    assert.equal(
      requests('a') - before,
      1,
      `${label}: the journal of the damaged run is not read: /a is fetched again`,
    );
    // kept for inspection as it was, and never read again: the next run neither reports nor resumes it
    const [moved] = aside(out, '2026-01-05');
    assert.equal(readFileSync(join(out, '.incomplete', moved, 'run.json'), 'utf8'), text);
    assert.ok(existsSync(join(out, '.incomplete', moved, 'crawl', 'journal.ndjson')));
    const again = await runCli(crawlArgs('snapshot', out, '2026-01-05T12:00:00Z'));
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, 'snapshot 2026-01-05 is already published; nothing to do\n');
    assert.equal(again.stderr, '');
  }
});

test('a damaged weekly run of a week that is over is reported lost, and the current week is crawled', async () => {
  const pristine = mkdtempSync(join(tmpdir(), 'run-state-over-'));
  await killedRun(crawlArgs('snapshot', pristine, '2026-01-05T00:00:00Z'), pristine, '2026-01-05');
  const { out } = damagedCopy(pristine, '2026-01-05', () => '');
  const log = join(out, 'run.log');
  const r = await runCli([...crawlArgs('snapshot', out, '2026-01-12T00:00:00Z'), '--log', log]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.startsWith(`published ${join(out, '2026-01-12')}: `), r.stdout);
  const line = assertReported(r.stderr, log, out, '2026-01-05', 'it is empty');
  assert.ok(line.endsWith('its week is not the current one, so it is not crawled again'), line);
  assert.ok(!existsSync(join(out, '2026-01-05')));
});

test('a tick whose interval run has a damaged run.json crawls the slot afresh; snapshot is not blocked', async () => {
  const pristine = mkdtempSync(join(tmpdir(), 'run-state-tick-'));
  // DyLDO's levels, which put the documents due at a known slot
  const dyldoArgs = (command: 'snapshot' | 'tick', out: string, now: string) => [
    ...crawlArgs(command, out, now),
    '--strategy',
    'dyldo',
  ];
  // three weeks in which every document changes: each moves up to level 1, due again half a week on
  for (const week of ['2026-01-05', '2026-01-12', '2026-01-19']) {
    const r = await runCli(dyldoArgs('snapshot', pristine, `${week}T00:00:00Z`));
    assert.equal(r.status, 0, r.stderr);
  }
  // 2026-01-19 + 84 h: the start of slot 8, where the documents are due
  const slot = '2026-01-22T12:00:00Z';
  const name = '2026-01-22T1200Z';
  await killedRun(dyldoArgs('tick', pristine, slot), pristine, name);
  for (const { label, damage, problem } of DAMAGES) {
    const { out, text } = damagedCopy(pristine, name, damage);
    // the weekly snapshot leaves an interval run to tick: before, any damaged run.json stopped it too
    const weekly = await runCli(dyldoArgs('snapshot', out, '2026-01-19T00:00:00Z'));
    assert.equal(weekly.status, 0, `${label}: ${weekly.stderr}`);
    assert.equal(weekly.stderr, '');
    assert.ok(existsSync(runFile(out, name)), 'left in place for tick');

    const before = requests('a');
    const log = join(out, 'tick.log');
    const r = await runCli([...dyldoArgs('tick', out, slot), '--log', log]);
    assert.equal(r.status, 0, `${label}: ${r.stderr}`);
    assert.equal(r.stdout, `published ${join(out, name)}: 3 due documents\n`, label);
    const line = assertReported(r.stderr, log, out, name, problem);
    assert.ok(line.endsWith('its slot, while it lasts, is crawled afresh)'), line);
    assert.equal(requests('a') - before, 1, `${label}: /a is fetched again`);
    const [moved] = aside(out, name);
    assert.equal(readFileSync(join(out, '.incomplete', moved, 'run.json'), 'utf8'), text);
    const again = await runCli(dyldoArgs('tick', out, slot));
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, `slot 8 is done (${name}); nothing to do\n`);
    assert.equal(again.stderr, '');
  }
});
