import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { Command } from 'commander';
import { ObservatoryError, replaceFile } from '../core/index.ts';
import { type WaczSummary, writeWacz } from '../snapshot/index.ts';

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
      let summary: WaczSummary | undefined;
      await replaceFile(target, async (temporary) => {
        const out = createWriteStream(temporary);
        summary = await writeWacz(source, out);
        await finished(out);
      });
      const { snapshot, warcFiles, referredRecords, pages } = summary!;
      process.stderr.write(
        `${target}: ${snapshot}, ${warcFiles.length} WARC files, ${referredRecords} earlier records its revisits refer to, ${pages} pages\n`,
      );
    });
}
