import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';
import { invalidInput } from '../core/index.ts';
import { startSimWeb, truthRecords } from '../simweb/index.ts';
import { addSimWebOptions, type SimWebCliOptions, simWebOptionsFromCli } from './simweb-options.ts';

interface SimWebCommandOptions extends SimWebCliOptions {
  truth?: string;
  seedsOut: string;
  caOut?: string;
}

/** `observatory simweb`: serves the simulated Web of Data until SIGINT/SIGTERM. */
export function simwebCommand(): Command {
  return addSimWebOptions(
    new Command('simweb').description('serve the simulated Web of Data on 127.0.0.1 (see docs/simweb.md)'),
    {
      port: 8080,
    },
  )
    .option(
      '--https',
      'serve HTTPS too: a test CA, a TLS port, broken-TLS hosts, http->https redirects',
      false,
    )
    .option('--tls-port <n>', 'TLS port on 127.0.0.1 with --https (0: any free port)', '8443')
    .option(
      '--ca-out <file>',
      "with --https: write the test CA's certificate (PEM) here, for the crawler's --ca-file",
    )
    .option('--truth <file>', 'write the ground truth (JSON Lines, at the virtual clock) to this file')
    .option('--seeds-out <file>', 'where to write the core seed list', 'simweb-output/core.txt')
    .action(async (cli: SimWebCommandOptions) => {
      if (cli.caOut && !cli.https) throw invalidInput('--ca-out', '--https as well', cli.caOut);
      const options = simWebOptionsFromCli(cli);
      const sim = await startSimWeb(options);
      const seedsFile = resolve(cli.seedsOut);
      await mkdir(dirname(seedsFile), { recursive: true });
      await sim.writeCoreSeeds(seedsFile);
      if (cli.truth) {
        const file = resolve(cli.truth);
        await mkdir(dirname(file), { recursive: true });
        // one line at a time: a 200,000-document Web's truth is hundreds of MiB as one string
        await pipeline(
          Readable.from(truthRecords(sim.web, sim.clock.now()), { objectMode: true }).map(
            (r) => `${JSON.stringify(r)}\n`,
          ),
          createWriteStream(file),
        );
        process.stdout.write(`ground truth: ${file}\n`);
      }
      if (cli.caOut && sim.caPem) {
        const file = resolve(cli.caOut);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, sim.caPem);
        process.stdout.write(`test CA certificate: ${file}\n`);
      }
      const s = sim.summary();
      const rules = sim.resolveRules.map((r) => `--resolve '${r}'`).join(' ');
      const trust = sim.caPem ? ` --ca-file ${cli.caOut ? resolve(cli.caOut) : 'CA.pem (see --ca-out)'}` : '';
      process.stdout.write(
        `simulated Web of Data (seed ${s.seed}): ${s.documents} documents (${s.docSizes} sizes) on ${s.plds} PLDs (${s.hosts} hosts), ${s.scenarios} scenarios\n` +
          `listening on ${sim.origin}  (control: ${sim.origin}/__sim/info)\n` +
          (sim.tlsPort === null
            ? ''
            : `HTTPS on 127.0.0.1:${sim.tlsPort}; ${s.httpsRedirectPlds} PLDs redirect http to https\n`) +
          `give the crawler: ${rules}${trust} --allow-private\n` +
          `core seed list: ${seedsFile} (${sim.coreSeeds.length} URIs)\n`,
      );
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          done();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await sim.close();
    });
}
