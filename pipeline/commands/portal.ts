import { Command } from 'commander';
import { createProgress, invalidInput, systemClock } from '../core/index.ts';
import { buildPortal, servePortal } from '../portal/index.ts';
import { DEFAULT_DATA_DIR } from '../stats/index.ts';

interface PortalCliOptions {
  root: string;
  out: string;
  data: string;
  baseUrl?: string;
  downloadsUrl?: string;
  snapshotsUrl?: string;
  publisher?: string;
  contact?: string;
  evaluation?: string;
  estimation?: string;
  serve: boolean;
  port: string;
}

/** `observatory portal` (`npm run portal`): builds the static portal from the snapshots; `--serve` then serves it. */
export function portalCommand(): Command {
  return new Command('portal')
    .description(
      'build the static portal (site/, Astro) from the published snapshots; --serve serves it on 127.0.0.1',
    )
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .option(
      '--out <dir>',
      'where the site is written: a new or empty folder or an earlier build (marked .observatory-portal); left holding exactly the site, a rebuild writes only what changed',
      'site/dist',
    )
    .option('--data <dir>', 'where the portal data and the per-snapshot cache are kept', DEFAULT_DATA_DIR)
    .option(
      '--base-url <url>',
      'the URL the portal is published at (default: the project site; with --serve: its address)',
    )
    .option('--downloads-url <url>', 'publish downloads here instead of linking the files into the site')
    .option(
      '--snapshots-url <url>',
      'build from a published snapshots folder: fetch into --root only what the build reads (manifests, digests, new tables); downloads link there',
    )
    .option(
      '--serve',
      'serve the built portal on 127.0.0.1 until interrupted (byte ranges, ETags and CORS, for reading Parquet in place)',
      false,
    )
    .option('--port <n>', 'port for --serve (0: any free port)', '0')
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
    .action(async (cli: PortalCliOptions) => {
      const port = Number(cli.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw invalidInput('--port', 'a port from 0 to 65535', cli.port);
      // serving: listen first, so that the links and the dataset description carry the served address
      const server = cli.serve ? await servePortal({ dir: cli.out, port }) : null;
      const built = await buildPortal({
        root: cli.root,
        out: cli.out,
        dataDir: cli.data,
        baseUrl: cli.baseUrl ?? server?.url,
        downloadsUrl: cli.downloadsUrl,
        snapshotsUrl: cli.snapshotsUrl,
        publisher: cli.publisher,
        contact: cli.contact,
        evaluation: cli.evaluation,
        estimation: cli.estimation,
        // a line per phase where no terminal redraws one
        progress: createProgress('portal', systemClock, { intervalMs: 0 }),
      }).catch(async (error) => {
        await server?.close();
        throw error;
      });
      if (built.fetched)
        process.stdout.write(
          `fetched ${built.fetched.files} files, ${built.fetched.bytes} bytes from ${cli.snapshotsUrl}\n`,
        );
      process.stdout.write(
        `built the portal for ${built.data.snapshots.length} snapshots in ${built.out} (queries ${Math.round(built.statsMs)} ms, render ${Math.round(built.renderMs)} ms)\n`,
      );
      if (server) process.stdout.write(`portal served at ${server.url} (Ctrl-C to stop)\n`);
    });
}
