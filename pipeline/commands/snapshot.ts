import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { createProgress, invalidInput, ObservatoryError, parseDuration, readUriList } from '../core/index.ts';
import { DEFAULT_ADAPTIVE_ROUNDS, runWeeklySnapshot } from '../observe/index.ts';
import { addCoordinatorOption, coordinatedSetup } from './coordinator-option.ts';
import {
  addCrawlOptions,
  addProfileOption,
  type CrawlCliOptions,
  crawlSetup,
  stopSignal,
  withProfile,
} from './crawl-options.ts';
import { addStrategyOption, strategyOption } from './strategy-option.ts';

interface SnapshotCliOptions extends CrawlCliOptions {
  kernel: string;
  out: string;
  adaptiveRounds: string;
  lockWait: string;
  strategy: string;
  coordinator?: string;
}

/** `observatory snapshot`: the weekly snapshot of the kernel plus an adaptive crawl around it. */
export function snapshotCommand(): Command {
  const command = new Command('snapshot')
    .description(
      'weekly snapshot: every kernel URI, then an adaptive crawl of up to as many again; publishes a dated folder',
    )
    .option('--kernel <file>', 'kernel URI list', 'seeds/kernel.txt')
    .option('--out <dir>', 'snapshots folder', 'snapshots')
    .option(
      '--adaptive-rounds <n>',
      'hops of the adaptive crawl out from the kernel',
      String(DEFAULT_ADAPTIVE_ROUNDS),
    )
    .option(
      '--lock-wait <duration>',
      'how long to wait while another crawl (a tick) holds the snapshots folder before failing with locked',
      '1h',
    );
  addCoordinatorOption(command);
  addProfileOption(command);
  return addCrawlOptions(addStrategyOption(command)).action(
    async (given: SnapshotCliOptions, self: Command) => {
      const o = withProfile(given, self);
      const strategy = strategyOption(o);
      const setup = crawlSetup(o);
      const coordinated = coordinatedSetup(o.coordinator, setup.config);
      const adaptiveRounds = Number(o.adaptiveRounds);
      if (!Number.isInteger(adaptiveRounds) || adaptiveRounds < 0) {
        throw invalidInput('--adaptive-rounds', 'a whole number of at least 0', o.adaptiveRounds);
      }
      // no kernel yet is the usual first-run mistake: say which command makes one, as tick does
      if (!existsSync(o.kernel))
        throw new ObservatoryError(
          'invalid_input',
          `no kernel at ${o.kernel}: run \`observatory expand\` first (or give --kernel FILE)`,
        );
      const kernel = await readUriList(o.kernel);
      if (kernel.length === 0)
        throw invalidInput(
          '--kernel',
          'a kernel with at least one URI (run `observatory expand` first)',
          o.kernel,
        );
      const outcome = await runWeeklySnapshot({
        root: o.out,
        kernel,
        adaptiveRounds,
        lockWaitMs: parseDuration(o.lockWait, '--lock-wait'),
        ...setup,
        ...coordinated,
        strategy,
        progress: createProgress('snapshot', setup.clock, { logger: setup.logger }),
        publishProgress: () => createProgress('publish %', setup.clock, { logger: setup.logger }),
        signal: stopSignal(),
      });
      if (outcome.status !== 'stopped' && outcome.earlier)
        process.stdout.write(
          `published ${outcome.earlier.folder} (resumed; its week is over, so this week's snapshot follows)\n`,
        );
      if (outcome.status === 'exists') {
        process.stdout.write(`snapshot ${outcome.name} is already published; nothing to do\n`);
      } else if (outcome.status === 'stopped') {
        process.stderr.write(`snapshot ${outcome.name} stopped; run the same command again to resume\n`);
        process.exitCode = 130;
      } else {
        const m = outcome.snapshot.manifest;
        process.stdout.write(
          `published ${outcome.snapshot.folder}${outcome.resumed ? ' (resumed)' : ''}: ${JSON.stringify(m.counts)}\n`,
        );
      }
    },
  );
}
