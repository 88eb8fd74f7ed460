import { Command } from 'commander';
import { createProgress, parseDuration } from '../core/index.ts';
import { runTick } from '../observe/index.ts';
import { addCoordinatorOption, coordinatedSetup } from './coordinator-option.ts';
import { addCrawlOptions, type CrawlCliOptions, crawlSetup, stopSignal } from './crawl-options.ts';
import { addStrategyOption, strategyOption } from './strategy-option.ts';

interface TickCliOptions extends CrawlCliOptions {
  out: string;
  maxDuration?: string;
  strategy: string;
  coordinator?: string;
}

/** `observatory tick`: the sub-weekly crawl of the kernel documents due in the current slot. */
export function tickCommand(): Command {
  const command = new Command('tick')
    .description(
      'sub-weekly: crawl the kernel documents due in the current 10.5 h slot; safe to run from cron at any frequency',
    )
    .option('--out <dir>', 'snapshots folder', 'snapshots')
    .option('--max-duration <duration>', 'longest the crawl may take (default: what is left of the slot)');
  addCoordinatorOption(command);
  return addCrawlOptions(addStrategyOption(command)).action(async (o: TickCliOptions) => {
    const strategy = strategyOption(o);
    const setup = crawlSetup(o);
    const outcome = await runTick({
      ...(o.maxDuration ? { maxDurationMs: parseDuration(o.maxDuration, '--max-duration') } : {}),
      root: o.out,
      ...setup,
      ...coordinatedSetup(o.coordinator, setup.config),
      strategy,
      progress: createProgress('tick', setup.clock, { logger: setup.logger }),
      publishProgress: () => createProgress('publish %', setup.clock, { logger: setup.logger }),
      signal: stopSignal(),
    });
    const say = (line: string) => process.stdout.write(`${line}\n`);
    switch (outcome.status) {
      case 'published':
        if (outcome.missed.length > 0)
          say(`missed slots ${outcome.missed.join(', ')}: their documents were due now`);
        say(
          `published ${outcome.snapshot.folder}: ${outcome.due} due documents${outcome.resumed ? ' (resumed)' : ''}`,
        );
        if (outcome.postponed.length > 0)
          say(
            `postponed ${outcome.postponed.length} due documents to the next slot (they would not fit in this one)`,
          );
        break;
      case 'weekly-resumed':
        say(
          `resumed the interrupted weekly snapshot of this week: published ${outcome.snapshot.folder} (resumed); the next tick crawls what is due`,
        );
        break;
      case 'stopped':
        process.stderr.write(`tick ${outcome.name} stopped; the next tick resumes it\n`);
        process.exitCode = 130;
        break;
      case 'busy':
        say(`${outcome.reason}; nothing to do`);
        break;
      case 'no-weekly':
        say('no weekly snapshot yet: run `observatory snapshot` first');
        break;
      case 'weekly-due':
        say(
          `the week that began ${new Date(outcome.weekStart).toISOString()} is over: the weekly snapshot is due`,
        );
        break;
      case 'weekly-slot':
        say('slot 0 belongs to the weekly snapshot; nothing to do');
        break;
      case 'already-published':
        say(`slot ${outcome.slot} is done (${outcome.name}); nothing to do`);
        break;
      case 'later-published':
        say(
          `slot ${outcome.slot} comes before ${outcome.name}, published already (a clock that ran ahead); nothing to do`,
        );
        break;
      case 'nothing-due':
        if (outcome.missed.length > 0) say(`missed slots ${outcome.missed.join(', ')}`);
        say(`no kernel document is due in slot ${outcome.slot}`);
        break;
    }
  });
}
