import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { ObservatoryError, parseDuration, parseInstant } from '../core/index.ts';
import { type Health, observatoryHealth } from '../observe/index.ts';

interface StatusCliOptions {
  root: string;
  json?: boolean;
  now?: string;
  late: string;
  minDaysLeft: string;
}

/** Bytes in MiB below a GiB, else in GiB: a week of the demo is a few MiB, a disk hundreds of GiB. */
function size(bytes: number): string {
  return bytes < 1024 ** 3
    ? `${(bytes / 1024 ** 2).toFixed(1)} MiB`
    : `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

/** The status for a person: one line a fact, problems last. */
function describe(h: Health): string {
  const run = (r: Health['lastWeekly']) => (r ? `${r.name} (published ${r.publishedAt})` : 'none');
  const lines = [
    `observatory status of ${h.root} at ${h.now}`,
    `last weekly snapshot: ${run(h.lastWeekly)}; next due ${h.nextWeeklyDue ?? 'now'}`,
    `last tick: ${run(h.lastTick)}; next re-visit due ${h.nextTickDue ?? 'none scheduled'}`,
    ...h.runs.map((r) => `run ${r.name}: ${r.state}${r.startedAt ? ` (started ${r.startedAt})` : ''}`),
    ...(h.runLock
      ? [`run lock held by pid ${h.runLock.pid}: a weekly snapshot, tick or expansion is at work`]
      : []),
    ...h.staleLocks.map((l) => `stale lock ${l.path} (pid ${l.pid} is gone; the next run takes it over)`),
    `disk: ${size(h.disk.usedBytes)} used of ${size(h.disk.totalBytes)}, ${size(h.disk.freeBytes)} free; ` +
      `${size(h.disk.growthBytesPerWeek)} published a week` +
      (h.disk.daysLeft === null ? '' : `, full in ${Math.floor(h.disk.daysLeft)} days`),
  ];
  if (h.problems.length === 0) lines.push('healthy: nothing needs a person');
  else lines.push(`${h.problems.length} to look at:`, ...h.problems.map((p) => `  - ${p}`));
  return `${lines.join('\n')}\n`;
}

/**
 * `observatory status [--root DIR] [--json]`: the observatory's health for an operator; exit code 1
 * when something needs a person (cron's MAILTO, a monitoring check), 0 when healthy.
 */
export function statusCommand(): Command {
  return new Command('status')
    .description(
      "the observatory's health: last and next runs, failed, interrupted or missed runs, stale locks, disk and its growth; exit 1 when a person is needed",
    )
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .option('--json', 'print the status as one JSON object')
    .option('--late <duration>', 'how long past due a run may be before it is a problem', '1d')
    .option(
      '--min-days-left <n>',
      'days of disk left at the current growth below which it is a problem',
      '30',
    )
    .option('--now <iso>', 'the time to judge at (default: the wall clock)')
    .action(async (o: StatusCliOptions) => {
      const root = resolve(o.root);
      const isFolder = await stat(root).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isFolder) throw new ObservatoryError('invalid_input', `--root ${root}: no such folder`);
      const minDaysLeft = Number(o.minDaysLeft);
      if (!Number.isFinite(minDaysLeft) || minDaysLeft < 0)
        throw new ObservatoryError(
          'invalid_input',
          `--min-days-left: expected a number of days, got ${o.minDaysLeft}`,
        );
      const now = o.now !== undefined ? parseInstant(o.now) : Date.now();
      const health = await observatoryHealth(root, now, {
        lateMs: parseDuration(o.late, '--late'),
        minDaysLeft,
      });
      process.stdout.write(o.json ? `${JSON.stringify(health)}\n` : describe(health));
      if (health.problems.length > 0) process.exitCode = 1;
    });
}
