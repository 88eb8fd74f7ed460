import { Command } from 'commander';
import { invalidInput } from '../core/index.ts';
import { EXPANSION_KIND, REPORT_INDEX, writeReport } from '../stats/index.ts';

interface ReportCliOptions {
  root: string;
  out: string;
  evaluation?: string;
  estimation?: string;
  roundsKind: string;
  weeklyCrawls: string;
  expansion?: string;
}

/** `observatory report`: the papers' figures from the published snapshots, as SVG, CSV and a Markdown index. */
export function reportCommand(): Command {
  return new Command('report')
    .description(
      "regenerate the DyLDO paper's crawl figures (2, 3, 4, 6, Table 4) from the published snapshots as SVG + CSV + index.md; add evaluate/estimate outputs",
    )
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .option(
      '--out <dir>',
      'where the figures are written: a new or empty folder, or an earlier report (marked .observatory-report), emptied first',
      'reports',
    )
    .option(
      '--evaluation <dir>',
      'an `evaluate --out` folder (or a folder of them): its figures and tables included',
    )
    .option('--estimation <dir>', 'a folder of `estimate --json` outputs (*.json): included as a table')
    .option('--rounds-kind <kind>', 'the snapshot kind whose crawls Figures 2 and 3 show', EXPANSION_KIND)
    .option(
      '--expansion <run>',
      'the expansion run (YYYY-MM-DDTHHMMZ, when its crawl 1 started) whose crawls Figures 2 and 3 show; default the newest',
    )
    .option(
      '--weekly-crawls <n>',
      'without snapshots of that kind, Figures 2 and 3 show the newest n weekly snapshots',
      '1',
    )
    .action(async (cli: ReportCliOptions) => {
      const weeklyCrawls = Number(cli.weeklyCrawls);
      if (!Number.isInteger(weeklyCrawls) || weeklyCrawls < 1)
        throw invalidInput('--weekly-crawls', 'a whole number of at least 1', cli.weeklyCrawls);
      const report = await writeReport({
        root: cli.root,
        out: cli.out,
        evaluation: cli.evaluation ?? null,
        estimation: cli.estimation ?? null,
        rounds: { kind: cli.roundsKind, weeklyCrawls, run: cli.expansion },
      });
      process.stdout.write(
        `wrote ${report.files.length} files (${report.reproductions.length} figures from the snapshots) to ${cli.out}; see ${REPORT_INDEX}\n`,
      );
    });
}
