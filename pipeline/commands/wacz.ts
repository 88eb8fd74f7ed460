import { open, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Command } from 'commander';
import { ObservatoryError } from '../core/index.ts';
import { MANIFEST_FILE, writeWacz, writeWaczFile } from '../snapshot/index.ts';

interface WaczCliOptions {
  out?: string;
}

/**
 * `observatory wacz FOLDER [--out FILE]`: packages a snapshot's archive as WACZ for ReplayWeb.page
 * on demand, so that no folder keeps a second copy of its WARC files (docs/archive.md, "Replay").
 * `--out -` streams it to standard output; a file is written beside its name and renamed into
 * place once whole. One careless `--out` must not destroy data: an existing file is replaced only
 * when it is a WACZ (a zip named .wacz), and never inside a snapshot folder, whose files are listed.
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
      await checkTarget(target);
      const { snapshot, warcFiles, referredRecords, pages } = await writeWaczFile(source, target);
      process.stderr.write(
        `${target}: ${snapshot}, ${warcFiles.length} WARC files, ${referredRecords} earlier records its revisits refer to, ${pages} pages\n`,
      );
    });
}

const ZIP_SIGNATURE = Buffer.from('PK\x03\x04', 'latin1');

/** Refuses (`invalid_input`) an output that would replace anything but a WACZ, or add a file to a snapshot folder. */
async function checkTarget(target: string): Promise<void> {
  const refuse = (why: string) =>
    new ObservatoryError(
      'invalid_input',
      `--out ${target} ${why}: give a new file, or a .wacz written before`,
    );
  const inSnapshot = await stat(join(dirname(target), MANIFEST_FILE)).then(
    () => true,
    () => false,
  );
  if (inSnapshot) throw refuse('lies in a snapshot folder, whose files its manifest lists');
  const existing = await stat(target).catch(() => null);
  if (existing === null) return;
  if (!existing.isFile() || !target.endsWith('.wacz')) throw refuse('exists and is not a WACZ');
  const head = Buffer.alloc(ZIP_SIGNATURE.length);
  const file = await open(target, 'r');
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  if (!head.equals(ZIP_SIGNATURE)) throw refuse('exists and is not a WACZ (not a zip file)');
}
