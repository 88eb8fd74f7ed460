import { basename, join, resolve } from 'node:path';
import { Command } from 'commander';
import { createProgress, systemClock } from '../core/index.ts';
import { listSnapshots, verifySnapshot } from '../snapshot/index.ts';

interface VerifyCliOptions {
  root: string;
}

/** `observatory verify [FOLDER]`: checks snapshot folders against their manifests and checksums. */
export function verifyCommand(): Command {
  return new Command('verify')
    .description(
      'check a snapshot folder (default: every published snapshot) against its manifest, checksums and schema',
    )
    .argument('[folder]', 'a snapshot folder; without it, every snapshot listed in <root>/index.json')
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .action(async (folder: string | undefined, options: VerifyCliOptions) => {
      const folders =
        folder !== undefined
          ? [resolve(folder)]
          : (await listSnapshots(options.root)).map((e) => resolve(join(options.root, e.name)));
      for (const path of folders) {
        const progress = createProgress(`verify ${basename(path)} data.nq.gz bytes`, systemClock);
        const report = await verifySnapshot(path, progress);
        process.stdout.write(
          `ok ${report.name}: ${report.files} files, ${report.bytes} bytes, ${report.quads} quads\n`,
        );
      }
      if (folders.length === 0) process.stdout.write(`no published snapshots in ${resolve(options.root)}\n`);
    });
}
