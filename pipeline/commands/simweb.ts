import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';
import { startSimWeb, truthRecords } from '../simweb/index.ts';
import { addSimWebOptions, type SimWebCliOptions, simWebOptionsFromCli } from './simweb-options.ts';

interface SimWebCommandOptions extends SimWebCliOptions {
  truth?: string;
  seedsOut: string;
}

/** `observatory simweb`: serves the simulated Web of Data until SIGINT/SIGTERM. */
export function simwebCommand(): Command {
  return addSimWebOptions(
    new Command('simweb').description('serve the simulated Web of Data on 127.0.0.1 (see docs/simweb.md)'),
    {
      port: 8080,
    },
  )
    .option('--truth <file>', 'write the ground truth (JSON Lines, at the virtual clock) to this file')
    .option('--seeds-out <file>', 'where to write the core seed list', 'simweb-output/core.txt')
    .action(async (cli: SimWebCommandOptions) => {
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
      const s = sim.summary();
      process.stdout.write(
        `simulated Web of Data (seed ${s.seed}): ${s.documents} documents (${s.docSizes} sizes) on ${s.plds} PLDs (${s.hosts} hosts), ${s.scenarios} scenarios\n` +
          `listening on ${sim.origin}  (control: ${sim.origin}/__sim/info)\n` +
          `give the crawler: --resolve '${sim.resolveRule}' --allow-private\n` +
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
