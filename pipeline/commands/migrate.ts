import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { ObservatoryError } from '../core/index.ts';
import { CATALOGUE_FILE, linkSnapshotTables, listSnapshots, TABLES_DIR } from '../snapshot/index.ts';

interface MigrateCliOptions {
  root: string;
}

/**
 * `observatory migrate [--root DIR]`: brings a snapshot root to the current layout, that is the
 * tables/ view (docs/data-dictionary.md, One glob over all snapshots) of every snapshot index.json
 * lists. It repairs what a publish killed before its links left out and migrates a root from before
 * the view; running it again changes nothing.
 */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description(
      `add every missing entry of <root>/${TABLES_DIR}/ (hard links to the tables of each published snapshot); idempotent`,
    )
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .action(async (options: MigrateCliOptions) => {
      const root = resolve(options.root);
      const isFolder = await stat(root).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isFolder) throw new ObservatoryError('invalid_input', `--root ${root}: no such folder`);
      const snapshots = await listSnapshots(root);
      if (snapshots.length === 0) {
        process.stdout.write(`no snapshots listed in ${join(root, CATALOGUE_FILE)}: nothing to migrate\n`);
        return;
      }
      const total = { created: 0, replaced: 0, present: 0 };
      for (const { name, kind } of snapshots) {
        const links = await linkSnapshotTables(root, name, kind);
        if (links.created + links.replaced > 0) {
          process.stdout.write(`${name}: ${links.created} links created, ${links.replaced} replaced\n`);
        }
        total.created += links.created;
        total.replaced += links.replaced;
        total.present += links.present;
      }
      process.stdout.write(
        `${snapshots.length} snapshots in ${join(root, TABLES_DIR)}: ${total.created} links created, ` +
          `${total.replaced} replaced, ${total.present} already in place\n`,
      );
    });
}
