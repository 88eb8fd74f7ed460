import { Command } from 'commander';
import { parseDuration, parseInstant } from '../core/index.ts';
import { latestSchedule } from '../observe/index.ts';
import { planSlot, readHistoryStats, SLOT_MS } from '../schedule/index.ts';
import { addCrawlOptions, type CrawlCliOptions, crawlSetup } from './crawl-options.ts';
import { estimateReport, humanDuration } from './estimate.ts';

interface PlanCliOptions extends CrawlCliOptions {
  slot: string;
  history?: string;
  root: string;
  at?: string;
}

/** `observatory plan`: which due kernel documents, at which re-visit levels, fit in one slot. */
export function planCommand(): Command {
  const command = new Command('plan')
    .description('which kernel documents due now (by re-visit level) a crawl fits into one slot')
    .option('--slot <duration>', 'time the crawl may take', `${SLOT_MS / 3_600_000}h`)
    .option('--root <dir>', 'snapshots folder (the latest schedule)', 'snapshots')
    .option('--history <dir>', 'snapshots folder of the history (default: --root)')
    .option('--at <iso>', 'the slot start (default: now)');
  return addCrawlOptions(command).action(async (o: PlanCliOptions) => {
    const budgetMs = parseDuration(o.slot, '--slot', 'h');
    const { config, clock } = crawlSetup(o);
    const slotStart = o.at !== undefined ? parseInstant(o.at, '--at') : clock.now();
    const plan = planSlot({
      schedule: await latestSchedule(o.root),
      slotStart,
      budgetMs,
      stats: await readHistoryStats(o.history ?? o.root),
      config,
    });
    const say = (line: string) => process.stdout.write(`${line}\n`);
    if (!plan.estimate) {
      say(`no kernel document is due at ${new Date(slotStart).toISOString()}`);
      return;
    }
    say(`slot of ${humanDuration(budgetMs)} from ${new Date(slotStart).toISOString()}`);
    say('level (visits a week): due, fit');
    for (const l of plan.byLevel) say(`  ${l.level} (${2 ** l.level}x): ${l.due}, ${l.fit}`);
    say(`fit ${plan.fit.length}, postponed ${plan.postponed.length} (lowest level, least overdue first)`);
    for (const line of estimateReport(plan.estimate, config.concurrency)) say(line);
  });
}
