/**
 * `npm run lifetime [-- --weeks N --docs N --seed S]`: a year of the observatory in fast-forward,
 * run the way cron runs it (docs/lifetime.md). A simulated Web with its dynamics and faults, a
 * virtual clock moved slot by slot, a fresh `observatory` process for every run, the portal rebuilt
 * weekly as CI builds it, the faults of the year plan injected on the way, and the software upgraded
 * half-way. Prints and writes the week-by-week report and its checks; exits 1 when a check fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { payLevelDomain } from '../../pipeline/core/index.ts';
import { SLOT_MS, seededRandom, WEEK } from '../../pipeline/schedule/index.ts';
import { type CheckResult, noOldParses, nothingLost, sameSite } from './checks.ts';
import { startCli } from './cli-process.ts';
import { mountLoopDisk } from './loop-disk.ts';
import { writeReport } from './report.ts';
import { startSimWebServer } from './simweb-control.ts';
import { prepareVersions } from './versions.ts';
import { runYear } from './year.ts';
import { planYear, upgradeWeek } from './year-plan.ts';

const { values } = parseArgs({
  options: {
    weeks: { type: 'string', default: '52' },
    docs: { type: 'string', default: '2500' },
    plds: { type: 'string' },
    seed: { type: 'string', default: '1' },
    faults: { type: 'string', default: '1' },
    'latency-scale': { type: 'string', default: '0.02' },
    out: { type: 'string', default: '.bench/lifetime' },
    publish: { type: 'boolean', default: false },
  },
});
const say = (line: string) => process.stderr.write(`lifetime: ${line}\n`);
const integer = (name: string, text: string, min: number) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    say(`--${name}: expected a whole number of at least ${min}, got ${text}`);
    process.exit(2);
  }
  return n;
};
const weeks = integer('weeks', values.weeks, 4);
const docs = integer('docs', values.docs, 200);
const plds =
  values.plds === undefined ? Math.max(20, Math.round(docs / 16)) : integer('plds', values.plds, 10);
const seed = integer('seed', values.seed, 0);
const repo = resolve(new URL('../../', import.meta.url).pathname);
const out = resolve(repo, values.out);
// the year starts on a Monday, 00:00 UTC: the simulated Web's epoch
const start = Date.UTC(2026, 0, 5);
const wallStart = Date.now();

// the folder is the benchmark's: emptied when it holds its marker, refused when it holds anything else
const marker = join(out, '.observatory-lifetime');
const mountPoint = join(out, 'fs');
if (existsSync(out)) {
  if (!existsSync(marker) && execFileSync('ls', ['-A', out], { encoding: 'utf8' }).trim() !== '') {
    say(`${out} holds files that are not a lifetime run's: give another --out`);
    process.exit(2);
  }
  try {
    execFileSync('mountpoint', ['-q', mountPoint]);
    execFileSync('umount', [mountPoint]);
  } catch {
    // not mounted
  }
  rmSync(out, { recursive: true, force: true });
}
mkdirSync(join(out, 'seeds'), { recursive: true });
writeFileSync(marker, '');

const versions = prepareVersions(repo, join(repo, '.bench', 'lifetime-wave2'), say);
say(`old version ${versions.old.commit} (${versions.old.dir}), current ${versions.current.commit}`);
const { events: plan, leftOut } = planYear(weeks, seed);
const disk = mountLoopDisk(join(out, 'disk.img'), mountPoint, 16 * 2 ** 30);
const root = join(mountPoint, 'snapshots');
const sim = await startSimWebServer(versions.current, [
  '--seed',
  String(seed),
  '--docs',
  String(docs),
  '--plds',
  String(plds),
  '--faults',
  values.faults,
  '--latency-scale',
  values['latency-scale'],
  '--now',
  new Date(start).toISOString(),
  '--seeds-out',
  join(out, 'seeds', 'core.txt'),
]);
say(`simulated Web: ${docs} documents on ${plds} PLDs, seed ${seed}, port ${sim.port}`);

let failed = false;
try {
  // the Web's real changes per week over the whole span, from its ground truth
  const truth = await sim.truth(start);
  const webChanges = Array.from({ length: weeks }, () => 0);
  for (const record of truth)
    for (const change of record.changes) {
      const week = Math.floor((Date.parse(change.at) - start) / WEEK);
      if (change.graphChanged && week >= 0 && week < weeks) webChanges[week]++;
    }
  const year = await runYear({
    out,
    root,
    disk,
    sim,
    weeks,
    seed,
    start,
    old: versions.old,
    current: versions.current,
    plan,
    outagePld: (kernel) => {
      // a data PLD with several kernel documents (not a vocabulary), drawn by the seed
      const counts = new Map<string, number>();
      for (const url of kernel) {
        const pld = payLevelDomain(new URL(url).hostname);
        counts.set(pld, (counts.get(pld) ?? 0) + 1);
      }
      const vocabularies = new Set([
        'w3.org',
        'xmlns.com',
        'purl.org',
        'rdfs.org',
        'schema.org',
        'creativecommons.org',
      ]);
      const candidates = [...counts]
        .filter(([pld, n]) => n >= 5 && n <= 60 && !vocabularies.has(pld))
        .map(([pld]) => pld)
        .sort();
      return (
        candidates[Math.floor(seededRandom(seed ^ 0x0ff)() * candidates.length)] ?? [...counts.keys()][0]
      );
    },
    say,
  });

  say('checks: verify --root, nothing lost, a portal from scratch');
  const checks: CheckResult[] = [];
  const cli = (args: string[]) =>
    startCli(versions.current, args, {
      cwd: out,
      env: process.env,
      outputLog: join(out, 'logs', 'checks-output.log'),
      label: 'checks',
    }).exited;
  const verify = await cli(['verify', '--root', root]);
  checks.push({
    name: 'every snapshot verifies (observatory verify --root)',
    passed: verify.exitCode === 0,
    detail: `exit ${verify.exitCode}: ${(verify.stdout + verify.stderr).trim().split('\n').at(-1)}`,
  });
  checks.push(await nothingLost(root, year.answered));
  // the old version fetched at the upgrade slot's start (minutes of virtual time), the new one from the next slot on
  checks.push(await noOldParses(root, start + upgradeWeek(weeks) * WEEK + SLOT_MS / 2));
  // from scratch: no cache, and no deployed site to take history totals from
  await year.stopServers();
  const scratch = join(out, 'ci', 'scratch');
  const { servePortal } = await import('../../pipeline/portal/index.ts');
  const snapshots = await servePortal({ dir: root, port: Number(new URL(year.snapshotsUrl).port) });
  const build = await cli([
    'portal',
    '--snapshots-url',
    year.snapshotsUrl,
    '--root',
    join(scratch, 'snapshots'),
    '--out',
    join(scratch, 'site'),
    '--data',
    join(scratch, 'generated'),
    '--base-url',
    year.pagesUrl,
  ]);
  await snapshots.close();
  checks.push(
    build.exitCode === 0
      ? sameSite(year.pages, join(scratch, 'site'))
      : {
          name: 'the portal built week by week equals a build from scratch',
          passed: false,
          detail: `the build from scratch failed: ${build.stderr.trim().split('\n').at(-1)}`,
        },
  );
  const finalStatus = year.weeks.at(-1);
  checks.push({
    name: 'status healthy at the end (exit 0)',
    passed: finalStatus?.statusExit === 0,
    detail: `exit ${finalStatus?.statusExit}${finalStatus?.statusProblems.length ? `: ${finalStatus.statusProblems.join('; ')}` : ''}`,
  });
  checks.push({
    name: '0 manual steps',
    passed: year.manualSteps.length === 0,
    detail:
      year.manualSteps.length === 0
        ? 'none: every run was started by the schedule; the upgrade ran `observatory migrate` as docs/operating.md says'
        : year.manualSteps.join('; '),
  });
  for (const c of checks) say(`${c.passed ? 'pass' : 'FAIL'}: ${c.name}: ${c.detail}`);
  failed = checks.some((c) => !c.passed);
  await writeReport({
    out,
    repo,
    publish: values.publish,
    command: `npm run lifetime -- --weeks ${weeks} --docs ${docs} --plds ${plds} --seed ${seed}`,
    seed,
    docs,
    plds,
    wallMs: Date.now() - wallStart,
    versions,
    plan,
    leftOut,
    year,
    webChanges,
    checks,
    kernel: year.kernel.length,
  });
} catch (error) {
  failed = true;
  say(`failed: ${(error as Error).stack}`);
} finally {
  await sim.stop();
  disk.unmount();
}
say(`done in ${((Date.now() - wallStart) / 60_000).toFixed(1)} min`);
process.exitCode = failed ? 1 : 0;
