import { join } from 'node:path';
import { Command, Option } from 'commander';
import { createProgress, invalidInput, readUriList } from '../core/index.ts';
import {
  claimExpansionWork,
  expansionFiles,
  removeExpansionWork,
  runExpansion,
  writeExpansion,
} from '../observe/index.ts';
import { addCoordinatorOption, coordinatedSetup } from './coordinator-option.ts';
import {
  addCrawlOptions,
  addProfileOption,
  type CrawlCliOptions,
  crawlSetup,
  stopSignal,
  withProfile,
} from './crawl-options.ts';

interface ExpandCliOptions extends CrawlCliOptions {
  seeds: string;
  kernel: string;
  report?: string;
  repeat: string;
  hops: string;
  rounds: 'unbounded' | 'hops';
  out: string;
  /** False with --no-publish. */
  publish: boolean;
  work?: string;
  keepWork: boolean;
  coordinator?: string;
}

function wholeNumber(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw invalidInput(name, 'a whole number of at least 1', text);
  return n;
}

/** `observatory expand`: the kernel from repeated 2-hop crawls around the core seeds. */
export function expandCommand(): Command {
  const command = new Command('expand')
    .description(
      'crawl 2 hops around the core seeds, --repeat times, publish each crawl as an expand snapshot, and write the kernel (URIs that gave RDF)',
    )
    .option('--seeds <file>', 'core seed list, one URI a line', 'seeds/core.txt')
    .option('--kernel <file>', 'where the kernel list goes', 'seeds/kernel.txt')
    .option('--report <file>', 'expansion report (JSON; a .md beside it)', undefined)
    .option('--repeat <K>', 'independent crawls whose RDF documents are united (the paper used 10)', '10')
    .option('--hops <n>', 'hops from the seeds', '2')
    .addOption(
      new Option(
        '--rounds <bound>',
        'unbounded: every URI within --hops is fetched, whatever round it lands in; hops: rounds 0 to --hops only, as LDSpider counted them',
      )
        .choices(['unbounded', 'hops'])
        .default('unbounded'),
    )
    .option('--out <dir>', 'snapshots folder the crawls are published into (kind expand)', 'snapshots')
    .option('--no-publish', 'keep only the kernel and the report: publish no snapshot of the crawls')
    .option('--work <dir>', 'journals of the crawls (a rerun resumes them)')
    .option('--keep-work', 'keep the journals after the kernel is written', false);
  addProfileOption(command);
  addCoordinatorOption(command);
  return addCrawlOptions(command).action(async (given: ExpandCliOptions, self: Command) => {
    const o = withProfile(given, self);
    const setup = crawlSetup(o);
    const repeat = wholeNumber('--repeat', o.repeat);
    const hops = wholeNumber('--hops', o.hops);
    const seeds = await readUriList(o.seeds);
    if (seeds.length === 0) throw invalidInput('--seeds', 'a file with at least one URI', o.seeds);
    const report = o.report ?? o.kernel.replace(/(\.txt)?$/, '-report.json');
    const work = claimExpansionWork(o.work ?? join(join(o.kernel, '..'), '.expand'), {
      root: o.out,
      files: [o.seeds, ...expansionFiles({ kernel: o.kernel, report })],
    });
    const workDir = work.path;
    const startedAt = new Date(setup.clock.now()).toISOString();
    const result = await runExpansion({
      seeds,
      repeat,
      hops,
      roundsAreHops: o.rounds === 'hops',
      workDir,
      ...setup,
      ...coordinatedSetup(o.coordinator, setup.config),
      progress: (i) => createProgress(`expand ${i}/${repeat}`, setup.clock, { logger: setup.logger }),
      signal: stopSignal(),
      ...(o.publish
        ? { publish: { root: o.out, announce: (folder) => process.stdout.write(`published ${folder}\n`) } }
        : {}),
    });
    if (!result.complete) {
      process.stderr.write(`expand stopped; run the same command again to resume from ${workDir}\n`);
      process.exitCode = 130;
      return;
    }
    await writeExpansion(
      result,
      { kernel: o.kernel, report },
      {
        seeds: seeds.length,
        startedAt,
        endedAt: new Date(setup.clock.now()).toISOString(),
      },
    );
    if (!o.keepWork) await removeExpansionWork(work);
    process.stdout.write(
      `kernel: ${result.kernel.length} URIs on ${result.plds.length} PLDs -> ${o.kernel} (report ${report})\n`,
    );
  });
}
