import { Command } from 'commander';
import { createProgress, systemClock } from '../core/index.ts';
import { computePortalData, DEFAULT_DATA_DIR, statsOptions } from '../stats/index.ts';

interface StatsCliOptions {
  root: string;
  data: string;
  baseUrl?: string;
  downloadsUrl?: string;
  publisher?: string;
  contact?: string;
  evaluation?: string;
  estimation?: string;
}

/** `observatory stats`: the portal's data (portal.json, VoID/DCAT, urls.txt) from the snapshots, without rendering. */
export function statsCommand(): Command {
  return new Command('stats')
    .description(
      'compute the portal data with DuckDB over the published snapshots (portal.json, VoID/DCAT, urls.txt)',
    )
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .option('--data <dir>', 'where the portal data is written', DEFAULT_DATA_DIR)
    .option('--base-url <url>', 'the URL the portal is published at (default: the project site)')
    .option(
      '--downloads-url <url>',
      'the URL the snapshots folder is published at (default: <base-url>snapshots/)',
    )
    .option('--publisher <name>', 'who publishes the snapshots (VoID/DCAT dct:publisher)')
    .option(
      '--contact <address>',
      'how to reach the operators: an e-mail address or a URL (VoID/DCAT contact point, About page)',
    )
    .option(
      '--evaluation <dir>',
      'an `evaluate --out` folder (or a folder of them) for the Reproductions page',
    )
    .option('--estimation <dir>', 'a folder of `estimate --json` outputs (*.json) for the Reproductions page')
    .action(async (cli: StatsCliOptions) => {
      const o = statsOptions({ ...cli, dataDir: cli.data });
      // on a terminal redrawn in place; elsewhere (cron, CI) a line every 5 s
      const data = await computePortalData(o, createProgress('stats', systemClock, { intervalMs: 5000 }));
      process.stdout.write(`portal data for ${data.snapshots.length} snapshots in ${o.dataDir}\n`);
    });
}
