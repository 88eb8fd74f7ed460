import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { Command } from 'commander';
import { ioError, ObservatoryError, temporaryFor } from '../core/index.ts';
import { writeWacz } from '../snapshot/index.ts';

interface WaczCliOptions {
  out?: string;
}

/**
 * `observatory wacz FOLDER [--out FILE]`: packages a snapshot's archive as WACZ for ReplayWeb.page
 * on demand, so that no folder keeps a second copy of its WARC files (docs/archive.md, "Replay").
 * `--out -` streams it to standard output; a file is written beside its name and renamed into
 * place once whole.
 */
export function waczCommand(): Command {
  return new Command('wacz')
    .description(
      "package a snapshot's archive as WACZ 1.1.1 (for ReplayWeb.page), with the earlier records its revisits refer to",
    )
    .argument('<folder>', 'a published snapshot folder')
    .option('--out <file>', 'where the WACZ goes (default: <snapshot name>.wacz here; - for standard output)')
    .action(async (folder: string, options: WaczCliOptions) => {
      const source = resolve(folder);
      const found = await stat(source).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!found) throw new ObservatoryError('invalid_input', `${source}: no such snapshot folder`);
      if (options.out === '-') {
        await writeWacz(source, process.stdout);
        return;
      }
      const target = resolve(options.out ?? `${basename(source)}.wacz`);
      const temporary = await temporaryFor(target);
      try {
        const out = createWriteStream(temporary);
        const summary = await writeWacz(source, out);
        await finished(out);
        await rename(temporary, target);
        process.stderr.write(
          `${target}: ${summary.snapshot}, ${summary.warcFiles.length} WARC files, ${summary.referredRecords} earlier records its revisits refer to, ${summary.pages} pages\n`,
        );
      } catch (error) {
        await rm(temporary, { force: true });
        throw error instanceof ObservatoryError ? error : ioError('write', target, error);
      }
    });
}
