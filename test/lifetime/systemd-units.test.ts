/**
 * The systemd units of docs/systemd/ (docs/operating.md, "Running it from systemd"): `systemd-analyze
 * verify` accepts them as an operator installs them (the checkout's path for /srv/observatory) with
 * no warning, every service is started by a timer or a path unit, and the timers fire when the
 * documentation says. Needs systemd-analyze (Debian's systemd package, on the CI runners too).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const UNITS = new URL('../../docs/systemd/', import.meta.url).pathname;
const REPO = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const skip = analyze ? false : 'systemd-analyze is not installed (apt-get install systemd)';

/** The units as installed from this checkout: /srv/observatory replaced by its path. */
function installed(edit: (name: string, text: string) => string = (_, t) => t): string {
  const dir = mkdtempSync(join(tmpdir(), 'systemd-units-'));
  for (const name of readdirSync(UNITS).filter((n) => /\.(service|timer|path)$/.test(n))) {
    const text = readFileSync(join(UNITS, name), 'utf8').replaceAll('/srv/observatory', REPO);
    writeFileSync(join(dir, name), edit(name, text));
  }
  return dir;
}

function verify(dir: string): { status: number | null; output: string } {
  const files = readdirSync(dir).map((n) => join(dir, n));
  const r = spawnSync('systemd-analyze', ['verify', ...files], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

test('systemd-analyze verify accepts every unit as installed, without a warning', { skip }, () => {
  const { status, output } = verify(installed());
  assert.equal(output, '');
  assert.equal(status, 0);
});

test('verify is no formality: a unit whose command is missing or that has an unknown key is reported', {
  skip,
}, () => {
  const broken = verify(
    installed((name, text) =>
      name === 'observatory-tick.service'
        ? text
            .replace('pipeline/cli.ts tick', 'pipeline/cli.ts tick\nRestartSecs=5')
            .replace('/node ', '/no-such-node ')
        : text,
    ),
  );
  assert.notEqual(broken.status, 0);
  assert.match(broken.output, /no-such-node/);
  assert.match(broken.output, /Unknown key 'RestartSecs'/);
});

test('every service is started by a timer or a path unit of the same name', () => {
  const names = readdirSync(UNITS);
  for (const service of names.filter((n) => n.endsWith('.service'))) {
    const base = service.replace(/\.service$/, '');
    assert.ok(
      names.includes(`${base}.timer`) || names.includes(`${base}.path`),
      `${service} has no timer or path unit`,
    );
  }
});

/** The next `n` instants a calendar expression fires, as systemd computes them (UTC). */
function elapses(expression: string, n: number): string[] {
  const out = execFileSync('systemd-analyze', ['calendar', `--iterations=${n}`, expression], {
    encoding: 'utf8',
    env: { ...process.env, TZ: 'UTC' },
  });
  return [...out.matchAll(/(?:Next elapse|Iter\. #\d+): \w+ (\S+ \S+) UTC/g)].map((m) =>
    new Date(`${m[1].replace(' ', 'T')}Z`).toISOString(),
  );
}

const onCalendar = (unit: string) => /^OnCalendar=(.+)$/m.exec(readFileSync(join(UNITS, unit), 'utf8'))![1];

test('the weekly snapshot fires on Mondays at 00:00 UTC, the tick every 30 minutes on the hour and half hour', {
  skip,
}, () => {
  const weekly = elapses(onCalendar('observatory-snapshot.timer'), 3);
  assert.equal(weekly.length, 3);
  for (const at of weekly) {
    assert.equal(new Date(at).getUTCDay(), 1, at);
    assert.match(at, /T00:00:00\.000Z$/);
  }
  const ticks = elapses(onCalendar('observatory-tick.timer'), 4).map(Date.parse);
  assert.equal(ticks.length, 4);
  for (const [i, t] of ticks.entries()) {
    assert.equal(t % (30 * 60_000), 0, new Date(t).toISOString());
    if (i > 0) assert.equal(t - ticks[i - 1], 30 * 60_000);
  }
});
