import { basename, resolve } from 'node:path';
import { Command } from 'commander';
import { createLogger, createProgress, systemClock } from '../core/index.ts';
import { reparseSnapshot } from '../snapshot/index.ts';

interface ReparseCliOptions {
  out: string;
  log?: string;
  logLevel: string;
}

/**
 * `observatory reparse FOLDER --out ROOT`: a snapshot's statements rebuilt from its WARC files alone,
 * once the folder verifies.
 */
export function reparseCommand(): Command {
  return new Command('reparse')
    .description(
      "rebuild a snapshot's statements from its WARC files with this version's parsers, once the folder verifies; publishes it under another root",
    )
    .argument('<folder>', 'a published snapshot folder with its WARC files')
    .requiredOption('--out <dir>', "the snapshots root to publish into (not the folder's own)")
    .option('--log <file>', 'write the structured log to this file instead of stderr')
    .option('--log-level <level>', 'log level: fatal, error, warn, info, debug, silent', 'warn')
    .action(async (folder: string, o: ReparseCliOptions) => {
      const logger = createLogger({ level: o.logLevel, file: o.log });
      const name = basename(resolve(folder));
      const published = await reparseSnapshot({
        folder,
        root: o.out,
        clock: systemClock,
        log: logger,
        progress: createProgress(`reparse ${name} documents`, systemClock, { logger }),
        verifyProgress: (counting) =>
          createProgress(`reparse ${name}: verify ${counting}`, systemClock, { logger }),
      });
      const { counts } = published.manifest;
      process.stdout.write(
        published.alreadyPublished
          ? `snapshot ${published.name} is already reparsed in ${resolve(o.out)}; nothing to do\n`
          : `published ${published.folder}: ${counts.documents} documents, ${counts.statements} statements\n`,
      );
    });
}
