import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Command } from 'commander';
import { createProgress, ObservatoryError, systemClock } from '../core/index.ts';
import { CATALOGUE_FILE, listSnapshots, verifySnapshot } from '../snapshot/index.ts';

interface VerifyCliOptions {
  root: string;
  deep?: boolean;
}

/**
 * The folder a user named, resolved: one that does not exist, or is a file, is invalid input (exit
 * 2), not a damaged snapshot: nothing was there to be damaged.
 */
async function namedFolder(path: string, what: string): Promise<string> {
  const folder = resolve(path);
  const found = await stat(folder).then(
    (s) => (s.isDirectory() ? 'folder' : 'not a folder'),
    () => 'no such folder',
  );
  if (found !== 'folder')
    throw new ObservatoryError('invalid_input', `${what}${folder}: ${found}, nothing to verify`);
  return folder;
}

/**
 * The folders that `verify --root` checks: every snapshot index.json lists. Nothing to verify is a
 * failure, not a pass: a mirror made without index.json, or a mistyped root, must not look checked.
 */
async function catalogued(root: string): Promise<string[]> {
  const folder = await namedFolder(root, '--root ');
  const entries = await listSnapshots(folder);
  if (entries.length > 0) return entries.map((e) => join(folder, e.name));
  const listed = await stat(join(folder, CATALOGUE_FILE)).then(
    () => true,
    () => false,
  );
  throw new ObservatoryError(
    'invalid_input',
    listed
      ? `${join(folder, CATALOGUE_FILE)} lists no snapshots: nothing to verify`
      : `no ${CATALOGUE_FILE} in ${folder}: nothing to verify (a mirror needs the catalogue too; the portal's urls.txt lists it)`,
  );
}

/**
 * `observatory verify [FOLDER] [--deep]`: checks snapshot folders against their manifests and
 * checksums; `--deep` also reads every byte of their archives (docs/archive.md).
 */
export function verifyCommand(): Command {
  return new Command('verify')
    .description(
      'check a snapshot folder (default: every published snapshot) against its manifest, checksums and schema',
    )
    .argument('[folder]', 'a snapshot folder; without it, every snapshot listed in <root>/index.json')
    .option('--root <dir>', 'the snapshots folder', 'snapshots')
    .option(
      '--deep',
      'also read every WARC record against its WARC-Block-Digest and WARC-Payload-Digest, and every body the crawl read against documents.content_sha256',
    )
    .action(async (folder: string | undefined, options: VerifyCliOptions) => {
      const folders = folder !== undefined ? [await namedFolder(folder, '')] : await catalogued(options.root);
      const deep = options.deep === true;
      for (const path of folders) {
        const progress = (counting: string) =>
          createProgress(`verify ${basename(path)} ${counting}`, systemClock);
        const report = await verifySnapshot(path, { deep, progress });
        process.stdout.write(
          `ok ${report.name}: ${report.files} files, ${report.bytes} bytes, ${report.quads} quads${deep ? ', every WARC record and body' : ''}\n`,
        );
      }
    });
}
